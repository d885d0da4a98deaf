// A JVM under weft (tests/real/run.sh compiles this with javac at test
// time): thousands of threads, a thread pool, wait/notify, and a
// StackOverflowError caught in main and in a thread.  The JVM places its
// own guard zones inside the stack pthread_getattr_np reports and turns a
// fault there into StackOverflowError; output must equal the native run's.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

class JavaThreads {
    static int depth;

    static void recurse() {
        depth++;
        recurse();
    }

    // 1 when a deep recursion ended in StackOverflowError.
    static int overflow() {
        depth = 0;
        try {
            recurse();
        } catch (StackOverflowError e) {
            return depth > 1000 ? 1 : 0;
        }
        return 0;
    }

    public static void main(String[] args) throws Exception {
        AtomicLong sum = new AtomicLong();
        int made = 0;
        for (int round = 0; round < 10; round++) {
            Thread[] ts = new Thread[300];
            for (int i = 0; i < ts.length; i++) {
                final int v = i;
                ts[i] = new Thread(() -> sum.addAndGet(v));
                ts[i].start();
                made++;
            }
            for (Thread t : ts)
                t.join();
        }
        System.out.println("threads " + made + " sum " + sum.get());

        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Long>> fs = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            final long v = i;
            fs.add(pool.submit(() -> v * v));
        }
        long s = 0;
        for (Future<Long> f : fs)
            s += f.get();
        pool.shutdown();
        System.out.println("pool sum " + s + " terminated " + pool.awaitTermination(30, TimeUnit.SECONDS));

        final Object lock = new Object();
        final int[] turn = {0};
        Thread other = new Thread(() -> {
            for (int i = 0; i < 2000; i++) {
                synchronized (lock) {
                    while (turn[0] != 1) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    turn[0] = 0;
                    lock.notifyAll();
                }
            }
        });
        other.start();
        for (int i = 0; i < 2000; i++) {
            synchronized (lock) {
                while (turn[0] != 0)
                    lock.wait();
                turn[0] = 1;
                lock.notifyAll();
            }
        }
        other.join();
        System.out.println("wait/notify 2000 rounds");

        System.out.println("StackOverflowError in main caught " + overflow());
        final int[] r = {0};
        Thread t = new Thread(() -> r[0] = overflow());
        t.start();
        t.join();
        System.out.println("StackOverflowError in a thread caught " + r[0]);
        Thread small = new Thread(null, () -> r[0] = overflow(), "small", 256 << 10);
        small.start();
        small.join();
        System.out.println("StackOverflowError in a 256 KiB thread caught " + r[0]);
        System.out.println("StackOverflowError in main again caught " + overflow());
    }
}
