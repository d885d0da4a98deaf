;; Guile 3 threads (pthreads) over Boehm GC: collections stop the world with
;; signals while many threads are parked on a condition variable and others
;; allocate heavily; an explicit (gc) with every waiter parked; then the
;; waiters are woken by broadcast and all threads are joined.
(use-modules (ice-9 threads) (srfi srfi-1))

(define (weft-check)
  (when (equal? (getenv "WEFT_EXPECT") "1")
    (let* ((port (open-input-file "/proc/self/maps"))
           (maps (let loop ((acc '()))
                   (let ((c (read-char port)))
                     (if (eof-object? c) (list->string (reverse acc)) (loop (cons c acc)))))))
      (close-port port)
      (unless (string-contains maps "libweft.so")
        (display "test: WEFT_EXPECT=1 but libweft.so is not loaded\n" (current-error-port))
        (exit 99)))))
(weft-check)

(define nwait 40)
(define nalloc 6)
(define m (make-mutex))
(define cv (make-condition-variable))      ; waiters wait for go
(define main-cv (make-condition-variable)) ; main waits for them to park
(define parked 0)
(define go #f)

;; Waiters keep a private list alive across the collections: it must be
;; intact (GC must have scanned their stacks while they were parked).
(define (waiter i)
  (let ((mine (iota 1000 i)))
    (lock-mutex m)
    (set! parked (+ parked 1))
    (signal-condition-variable main-cv)
    (let loop ()
      (unless go
        (wait-condition-variable cv m)
        (loop)))
    (unlock-mutex m)
    (apply + mine)))

;; Allocators: lists, vectors and strings, most of it garbage at once.
(define (allocator i)
  (let loop ((k 0) (keep '()) (sum 0))
    (if (= k 3000)
        (+ sum (length keep))
        (let* ((v (make-vector 64 k))
               (l (iota 50 k))
               (s (make-string 100 #\x)))
          (loop (+ k 1)
                (if (zero? (modulo k 100)) (cons (vector-ref v 3) keep) keep)
                (+ sum (apply + l) (string-length s) (vector-length v)))))))

(define gcs-before (assq-ref (gc-stats) 'gc-times))
(define waiters (map (lambda (i) (call-with-new-thread (lambda () (waiter i)))) (iota nwait)))

(lock-mutex m)
(let loop ()
  (when (< parked nwait)
    (wait-condition-variable main-cv m)
    (loop)))
(unlock-mutex m)

(define allocs (map (lambda (i) (call-with-new-thread (lambda () (allocator i)))) (iota nalloc)))
(define alloc-results (map join-thread allocs))
(gc)
(gc)
(define gcs-after (assq-ref (gc-stats) 'gc-times))

(lock-mutex m)
(set! go #t)
(broadcast-condition-variable cv)
(unlock-mutex m)
(define wait-results (map join-thread waiters))

(format #t "waiters ~a sum ~a~%" nwait (apply + wait-results))
(format #t "allocators ~a results ~a~%" nalloc alloc-results)
(format #t "collections while parked: ~a~%" (if (> (- gcs-after gcs-before) 2) "yes" "no"))
;; par-map: a futures-based pool of its own.
(format #t "par-map ~a~%" (apply + (par-map (lambda (x) (* x x)) (iota 200))))
