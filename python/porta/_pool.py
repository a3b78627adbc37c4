"""porta.DevicePool: a concurrent.futures.Executor whose workers are porta's device threads.

submit(fn, *args) runs fn(*args) on a worker with the worker's device current (porta.current_device()),
taking the GIL only while Python runs; map() and `with` come from Executor.
"""
import atexit
import concurrent.futures
import threading
import weakref

from . import _core

__all__ = ["DevicePool"]

_live_pools = weakref.WeakSet()


class DevicePool(concurrent.futures.Executor):
    def __init__(self, devices=None, workers_per_device=0):
        self._pool = _core._DevicePool(devices, workers_per_device)
        self._futures = weakref.WeakSet()
        self._lock = threading.Lock()
        self._shutdown = False
        _live_pools.add(self)

    @property
    def devices(self):
        return self._pool.devices

    def submit(self, fn, /, *args, device=None, **kwargs):
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit to a DevicePool after shutdown()")
            future = concurrent.futures.Future()
            self._futures.add(future)

        def run():
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as e:  # noqa: BLE001  (it travels through the future)
                future.set_exception(e)
            else:
                future.set_result(result)

        self._pool.submit(run, device)
        return future

    def wait(self):
        self._pool.wait()

    def shutdown(self, wait=True, *, cancel_futures=False):
        """Waits for every submitted task (porta's pool drains); cancel_futures drops those not started."""
        with self._lock:
            if self._shutdown:
                return
            self._shutdown = True
            if cancel_futures:
                for f in list(self._futures):
                    f.cancel()
        if cancel_futures:
            self._pool.cancel()
        self._pool.shutdown()


@atexit.register
def _shutdown_all():
    # Workers take the GIL to run tasks: drain them before the interpreter goes away.
    for p in list(_live_pools):
        p.shutdown()
