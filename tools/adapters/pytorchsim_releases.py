"""The two lines of PyTorchSim the adapter drives, told apart by the checkout.

PyTorchSim's `npu` device changed shape between its torch 2.2 line and its
master release v1.1.0 (torch 2.8). Which one a checkout is comes from its
files, never from a flag:

- `openreg` (master v1.1.0 and after, torch 2.8): the device is the
  `torch_openreg` PrivateUse1 backend of PyTorchSimDevice/, installed with
  pip and loaded by a `torch.backends` entry point on every `import torch`,
  which reads TORCHSIM_DIR; the TOGSim configs are YAML.
- `extension` (the torch 2.2 line, and its forks): the device is a torch
  C++ extension (PyTorchSimFrontend/extension_device.cpp) that
  Scheduler/scheduler.py's PyTorchSimRunner builds on first use; the
  configs are JSON.

Both lines write their kernels through the same MLIR code generation
(PyTorchSimFrontend/mlir), which is what npufuzz checks.
"""
import json
import os
import sys

# The TOGSim config both lines default to; its functional (Spike) and
# timing (TOGSim) simulation are turned off: code generation alone.
_CONFIG = "systolic_ws_128x128_c1_simple_noc_tpuv3"


class _Release:
    """A line: the file that tells it (`marker`, under the checkout), its
    config's format, and how its device is set up."""
    marker = ()

    @classmethod
    def detect(cls, checkout):
        return os.path.isfile(os.path.join(checkout, *cls.marker))

    @classmethod
    def write_config(cls, checkout, scratch):
        """The checkout's default config with both simulations off, written
        to `scratch` in the line's format; its path."""
        suffix, load, dump = cls.config_format()
        with open(os.path.join(checkout, "configs", _CONFIG + suffix)) as f:
            config = load(f)
        config["pytorchsim_functional_mode"] = 0
        config["pytorchsim_timing_mode"] = 0
        path = os.path.join(scratch, "togsim" + suffix)
        with open(path, "w") as f:
            dump(config, f)
        return path


class OpenRegDevice(_Release):
    name = "openreg"
    marker = ("PyTorchSimDevice", "torch_openreg", "__init__.py")

    @staticmethod
    def config_format():
        import yaml
        return ".yml", yaml.safe_load, yaml.safe_dump

    @staticmethod
    def set_up_device(checkout):
        # `import torch` loaded torch_openreg (its entry point), which
        # registered the device and PyTorchSim's MLIR scheduling for it.
        import torch
        if "torch_openreg" not in sys.modules:
            raise RuntimeError("torch did not load torch_openreg: PyTorchSimDevice/ is not "
                               "installed in this Python (pip install --no-build-isolation -e "
                               "PyTorchSimDevice), or TORCH_DEVICE_BACKEND_AUTOLOAD=0 is set")
        loaded = os.path.realpath(sys.modules["torch_openreg"].__file__)
        if not loaded.startswith(os.path.join(checkout, "PyTorchSimDevice") + os.sep):
            raise RuntimeError("torch loaded torch_openreg from %s, not from this checkout's "
                               "PyTorchSimDevice/" % loaded)
        return torch.npu.custom_device()


class ExtensionDevice(_Release):
    name = "extension"
    marker = ("PyTorchSimFrontend", "extension_device.cpp")

    @staticmethod
    def config_format():
        return ".json", json.load, json.dump

    @staticmethod
    def set_up_device(checkout):
        from extension_build import extension_directory
        from Scheduler.scheduler import PyTorchSimRunner
        with extension_directory(checkout):
            module = PyTorchSimRunner.setup_device()
        return module.custom_device()


def release_of(checkout):
    """The line `checkout` is; ValueError when it is neither."""
    for release in (OpenRegDevice, ExtensionDevice):
        if release.detect(checkout):
            return release
    raise ValueError("%s is not a PyTorchSim checkout npufuzz knows: it has neither "
                     "PyTorchSimDevice/torch_openreg (master v1.1.0, torch 2.8) nor "
                     "PyTorchSimFrontend/extension_device.cpp (the torch 2.2 line)" % checkout)
