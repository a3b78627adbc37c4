"""What the GIL-release tests share: a porta call on another thread while this thread loops."""
import threading
import time


def longest_pause_during(fn):
    """Runs fn() on a new thread while this thread loops, timing each turn of the loop; returns
    (fn's result, the longest turn). A call that held the GIL would stop the loop for its whole
    length. An exception in fn is raised here, after the thread has ended."""
    done = threading.Event()
    outcome = {}

    def worker():
        try:
            outcome["result"] = fn()
        except BaseException as e:  # noqa: B036 - handed to the test's thread
            outcome["error"] = e
        finally:
            done.set()

    th = threading.Thread(target=worker)
    max_gap, last = 0.0, time.perf_counter()
    th.start()
    while not done.is_set():
        now = time.perf_counter()
        max_gap, last = max(max_gap, now - last), now
    th.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"], max_gap
