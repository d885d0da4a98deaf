# A timer signal cuts main's sleep short while another thread waits, and
# its handler's exception reaches main (Python runs handlers on its main
# thread, once a call there returns EINTR).
import weft_check
weft_check.check_loaded()
import signal, threading, time

class Alarm(Exception):
    pass

def on_alarm(sig, frame):
    raise Alarm()

signal.signal(signal.SIGALRM, on_alarm)
ev = threading.Event()
th = threading.Thread(target=ev.wait)
th.start()
t0 = time.monotonic()
signal.setitimer(signal.ITIMER_REAL, 0.2)
try:
    time.sleep(5)
    print("slept through")
except Alarm:
    print("sleep interrupted, early:", time.monotonic() - t0 < 2)
ev.set()
th.join()
