"""PyTorchSim's `npu` C++ extension (its torch 2.2 line) built in a directory
of the checkout's and this Python's own, with a stale build lock told from
a live build (pytorchsim_releases.ExtensionDevice)."""
import hashlib
import os
import sys


class extension_directory:
    """PyTorchSim's `npu` extension built in a directory of this checkout's
    and this Python's own, under npufuzz's cache, with a stale build lock
    told from a live build.

    torch builds an extension in TORCH_EXTENSIONS_DIR/NAME (by default one
    directory for every checkout on the machine) under a lock file it
    creates and removes itself; a build killed by a case's limit leaves the
    file, and every later build waits on it forever. Here each adapter takes
    an exclusive flock on the directory's `npufuzz.lock` for the whole
    setup: the kernel drops it when the holder dies, so an adapter that
    waits on it waits on a live build (slow, not stale), and one that holds
    it knows that no build is running, and that a torch lock file left
    there is stale, and removes it."""

    def __init__(self, checkout):
        cache = os.environ.get("NPUFUZZ_CACHE") or os.path.join(
            os.path.expanduser("~"), ".cache", "npufuzz")
        key = hashlib.sha256(("%s\n%s" % (checkout, os.path.realpath(sys.executable)))
                             .encode()).hexdigest()[:16]
        self.root = os.path.join(cache, "pytorchsim-extensions", key)
        self.guard = None

    def __enter__(self):
        import fcntl
        os.makedirs(self.root, exist_ok=True)
        os.environ["TORCH_EXTENSIONS_DIR"] = self.root
        self.guard = open(os.path.join(self.root, "npufuzz.lock"), "w")
        fcntl.flock(self.guard, fcntl.LOCK_EX)
        try:
            os.remove(os.path.join(self.root, "npu", "lock"))
            sys.stderr.write("npufuzz pytorchsim adapter: removed the lock a killed build of "
                             "the npu extension left in %s\n" % self.root)
        except FileNotFoundError:
            pass
        return self

    def __exit__(self, *_):
        self.guard.close()  # and with it the flock
