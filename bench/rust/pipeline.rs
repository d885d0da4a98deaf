// pipeline [N [STAGES]]: bench/pipeline.c's chain through Rust's
// std::sync::mpsc channels (unbounded; their waits are futex waits): a
// producer thread sends 1..N, STAGES threads add 1 each, main sums.
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

fn arg(i: usize, dflt: u64) -> u64 {
    std::env::args().nth(i).map(|s| s.parse().expect("bad number")).unwrap_or(dflt)
}

fn cpu_s() -> f64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { clock_gettime(2 /* CLOCK_PROCESS_CPUTIME_ID */, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clk: i32, ts: *mut Timespec) -> i32;
}

fn main() {
    let n = arg(1, 1_000_000);
    let stages = arg(2, 8);
    let c0 = cpu_s();
    let t0 = Instant::now();
    let (tx0, mut rx) = mpsc::channel::<u64>();
    let mut handles = Vec::new();
    for _ in 0..stages {
        let (tx, next) = mpsc::channel::<u64>();
        let input = rx;
        handles.push(thread::spawn(move || {
            for v in input {
                tx.send(v + 1).unwrap();
            }
        }));
        rx = next;
    }
    handles.push(thread::spawn(move || {
        for i in 1..=n {
            tx0.send(i).unwrap();
        }
    }));
    let sum: u64 = rx.iter().sum();
    for h in handles {
        h.join().unwrap();
    }
    let t = t0.elapsed().as_secs_f64();
    let c = cpu_s() - c0;
    println!("messages: {} through {} stages", n, stages);
    println!("sum: {}", sum);
    println!("wall time: {:.3} s", t);
    println!("cpu time: {:.3} s", c);
}
