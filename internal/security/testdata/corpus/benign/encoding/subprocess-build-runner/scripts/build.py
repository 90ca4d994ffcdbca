#!/usr/bin/env python3
"""Build the native extension, run tests, and build a wheel."""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        sys.exit(f"build: {name} not found on PATH; install it first")
    return path


def step(title: str, cmd: list[str], **kw) -> None:
    print(f"\n==> {title}\n    {' '.join(cmd)}", flush=True)
    t = time.monotonic()
    try:
        subprocess.run(cmd, check=True, cwd=kw.pop("cwd", ROOT), **kw)
    except subprocess.CalledProcessError as e:
        sys.exit(f"build: {title} failed with exit code {e.returncode}")
    except subprocess.TimeoutExpired:
        sys.exit(f"build: {title} timed out")
    print(f"    done in {time.monotonic() - t:.1f}s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", action="store_true")
    ap.add_argument("--skip-tests", action="store_true")
    args = ap.parse_args()

    cmake = tool("cmake")
    build_type = "Release" if args.release else "Debug"
    build_dir = ROOT / "build" / build_type.lower()

    step("configure", [cmake, "-S", "native", "-B", str(build_dir), f"-DCMAKE_BUILD_TYPE={build_type}"])
    step("compile", [cmake, "--build", str(build_dir), "--parallel", str(os.cpu_count() or 2)])
    if not args.skip_tests:
        step("tests", [sys.executable, "-m", "pytest", "-q", "tests"], timeout=900)
    step("wheel", [sys.executable, "-m", "build", "--wheel", "--outdir", "dist"])


if __name__ == "__main__":
    main()
