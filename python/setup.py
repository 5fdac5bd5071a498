"""Builds nodescope's extensions with CMake (python/CMakeLists.txt) and the pybind11 already on
the system (Debian's pybind11-dev / python3-pybind11, or a pybind11 in the environment): nothing
is downloaded. Use: pip install --no-build-isolation ./python
CMAKE_ARGS in the environment is passed to the configure step (e.g. a compiler launcher);
CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default: the machine's cores)."""
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """One CMake run builds every extension (and the libraries nodescope/lib/ holds)."""

    built = False

    def run(self):
        # CMake decides what is out of date (its build folder is kept between installs);
        # setuptools would call an extension with no listed sources up to date and skip it.
        self.force = True
        super().run()

    def build_extension(self, ext):
        if CMakeBuild.built:
            return
        CMakeBuild.built = True
        out_dir = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        build_dir = os.path.abspath(self.build_temp)
        os.makedirs(build_dir, exist_ok=True)
        args = [
            "cmake", "-S", HERE, "-B", build_dir,
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DNODESCOPE_PY_OUTPUT_DIR={out_dir}",
            f"-DPython_EXECUTABLE={sys.executable}",
        ]
        try:  # the pybind11 module (python3-pybind11, or pip's) knows its CMake files
            import pybind11

            args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass  # pybind11-dev's /usr/lib/cmake/pybind11 is found by CMake itself
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.check_call(args)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        targets = [e.name.rpartition(".")[2] for e in self.extensions]
        subprocess.check_call(["cmake", "--build", build_dir, "--target", *targets, "-j", jobs])


setup(
    name="nodescope",
    version="0.1.0",
    description="GPU tracing and per-node statistics of CUDA/HIP graph traces (nodescope)",
    packages=["nodescope"],
    package_data={"nodescope": ["*.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("nodescope._nodescope"), CMakeExtension("nodescope._tracing_ext")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
