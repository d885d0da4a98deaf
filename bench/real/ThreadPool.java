// A JVM thread pool: an ExecutorService of 64 threads runs 200000 small
// tasks (a few hundred arithmetic steps each); main sums their results.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

class ThreadPool {
    public static void main(String[] args) throws Exception {
        int tasks = 200000, threads = 64;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Long>> fs = new ArrayList<>(tasks);
        for (int i = 0; i < tasks; i++) {
            final long seed = i;
            fs.add(pool.submit(() -> {
                long h = seed;
                for (int k = 0; k < 300; k++)
                    h = h * 6364136223846793005L + 1442695040888963407L;
                return h >>> 44;
            }));
        }
        long sum = 0;
        for (Future<Long> f : fs)
            sum += f.get();
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        System.out.println("tasks " + tasks + ", sum " + sum);
    }
}
