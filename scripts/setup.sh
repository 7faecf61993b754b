#!/usr/bin/env bash
# Installs every Debian package qjit's build, tests and benchmarks need.
# Idempotent: when everything is present it only runs dpkg-query and exits.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build git pkg-config
  # backends
  llvm-22-dev libasmjit-dev
  # libraries
  libspdlog-dev libfmt-dev
  # `qjit bench --format=json`
  nlohmann-json3-dev
  # `qjit run --params-out=FILE.npz` (zip archives of .npy files)
  libminizip-dev
  # the persistent kernel cache's entry checksums (CRC-32)
  zlib1g-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 python3-numpy
  # bench/report.py's plot
  python3-matplotlib
  # llvm-mc, llvm-mca and llc: `qjit asm` listings reassembled and modelled
  # (tests/tools/AsmReassemblyTest.cpp, bench/model.py)
  llvm-22
  # oracles the tests compare against
  mlir-22-tools python3-torch python3-onnx
  # the Python module (python/): bindings, DLPack's header, its tests
  pybind11-dev python3-pybind11 python3-dev libdlpack-dev python3-pytest
  # benchmark peers
  libdnnl-dev libxnnpack-dev libpthreadpool-dev
  # sanitizers and fuzzing (clang matching the LLVM in use)
  clang-22 libclang-rt-22-dev
  # AArch64 kernels run under qemu-user
  qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
