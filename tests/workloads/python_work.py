"""Python threads that spend known shares of their time in known functions,
for the Python frame tests (tests/sample_python.bats).  Runs on CPython 3.10
to 3.13 alike, with nothing but the standard library.

  python_work.py shares SECONDS   the main thread runs rounds of random
        length (1 to 9 ms, so that nothing locks to the sampling period),
        each spent 50% in alpha(), 30% in beta() (through a C function:
        sorted() calls beta_key()) and 20% in gamma(), all by the thread's
        own CPU clock (a wall clock would give the phases after a
        preemption less than their share);
        a second thread, "helper", hashes in helper_hash() half the time:
        in hashlib's C code, which lets the main thread keep the GIL.
  python_work.py block SECONDS    one thread sleeps in sleep_here()
        (time.sleep), another waits in read_socket() for the bytes the
        main thread writes every 20 ms.
  python_work.py async SECONDS    rounds of asyncio coroutines burning in
        coro_burn() (gathered by coro_round()) and of a generator burning
        in gen_burn() (drained by gen_round()), half the time each.
"""
import asyncio
import hashlib
import random
import socket
import sys
import threading
import time

clock = time.perf_counter
cpu = time.thread_time


def spin(until):
    # The thread's CPU clock is a system call: read every 100 turns, so
    # that the time goes to Python code rather than to the kernel.
    while cpu() < until:
        for _ in range(100):
            pass


def alpha(until):
    spin(until)


beta_until = 0.0


def beta_key(i):
    spin(beta_until)
    return -i


def beta(until):
    global beta_until
    beta_until = until
    sorted(range(3), key=beta_key)


def gamma(until):
    spin(until)


def one_round(length):
    start = cpu()
    alpha(start + 0.5 * length)
    beta(start + 0.8 * length)
    gamma(start + length)


def helper_hash(end):
    block = bytes(1 << 22)
    while clock() < end:
        hashlib.sha256(block).digest()
        time.sleep(0.01)


def shares(seconds):
    end = clock() + seconds
    helper = threading.Thread(target=helper_hash, args=(end,), name="helper")
    helper.start()
    rng = random.Random(1)
    while clock() < end:
        one_round(rng.uniform(0.001, 0.009))
    helper.join()


def sleep_here(end):
    while clock() < end:
        time.sleep(0.02)


def read_socket(sock):
    while sock.recv(1):
        pass


def block(seconds):
    end = clock() + seconds
    a, b = socket.socketpair()
    threads = [threading.Thread(target=sleep_here, args=(end,)),
               threading.Thread(target=read_socket, args=(b,))]
    for t in threads:
        t.start()
    while clock() < end:
        time.sleep(0.02)
        a.send(b"x")
    a.close()
    for t in threads:
        t.join()


async def coro_burn(cpu_seconds):
    await asyncio.sleep(0)
    spin(cpu() + cpu_seconds)


async def coro_round():
    await asyncio.gather(coro_burn(0.001), coro_burn(0.001))


def gen_burn(n):
    for i in range(n):
        spin(cpu() + 0.001)
        yield i


def gen_round():
    return sum(gen_burn(2))


def async_(seconds):
    end = clock() + seconds
    loop = asyncio.new_event_loop()
    while clock() < end:
        loop.run_until_complete(coro_round())
        gen_round()
    loop.close()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("shares", "block", "async"):
        sys.exit("usage: python_work.py shares|block|async SECONDS")
    if sys.argv[1] == "async":
        sys.argv[1] = "async_"
    globals()[sys.argv[1]](float(sys.argv[2]))
