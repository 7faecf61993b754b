/*===- KernelRunner.c - Runs flat AArch64 kernels on input files ----------===//
 *
 * A static AArch64 program (cross-built with aarch64-linux-gnu-gcc) that the
 * x86 test suite runs under qemu-aarch64-static:
 *
 *   qjit_aarch64_runner JOB OUT
 *
 * JOB holds kernels (flat position-independent code bytes, see
 * qjit::TargetCode) and, for each, calls to make; OUT receives each call's
 * output with its guards. Every kernel is mapped at its own page-aligned
 * address, written, then made executable (never writable and executable at
 * once). Inputs sit at the requested offset past a 64-byte boundary; the
 * output is poisoned with 0xA5, at its offset, with 64 guard bytes on both
 * sides, which the runner checks (the host compares them too).
 *
 * JOB (little-endian): "QJITJOB2", u32 kernels; per kernel: u64 code size,
 * u64 entry offset, code bytes, u32 ABI (0: KernelFn, 1: ParamKernelFn, 2:
 * DynamicKernelFn), u64 extent count, i64 extents, u64 scale bytes, scale
 * bytes, u64 zero-point count (0: null), i64 zero points, for ABI 2 u64
 * parameters and u64 bytes per value, then u32 calls; per call: u64 n, u64
 * src offset, u64 src bytes, src bytes, u64 dst offset, u64 dst bytes.
 * OUT: per call, u8 input-unchanged, then dst bytes + 128 guarded bytes;
 * for ABI 2 the scales and the zero points the kernel wrote, each with its
 * 128 guard bytes the same way.
 *===----------------------------------------------------------------------===*/
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { kGuardBytes = 64, kPoison = 0xA5, kAlign = 64 };

typedef struct {
  const int64_t *extents;
  const void *scales;
  const int64_t *zeroPoints;
} KernelParams;

typedef void (*KernelFn)(const void *, void *, size_t);
typedef void (*ParamKernelFn)(const void *, void *, size_t,
                              const KernelParams *);
/* qjit/internal/DynamicKernelAbi.h */
typedef struct {
  void *scales;
  int64_t *zeroPoints;
  void *low, *high;
} DynamicKernelBuffers;
typedef void (*DynamicKernelFn)(const void *, void *, size_t,
                                const KernelParams *,
                                const DynamicKernelBuffers *);
enum { kPlainAbi, kParamsAbi, kDynamicAbi };

static FILE *job;
static volatile uint32_t currentKernel, currentCall;

static void fail(const char *what) {
  fprintf(stderr, "qjit_aarch64_runner: %s (kernel %u, call %u)\n", what,
          (unsigned)currentKernel, (unsigned)currentCall);
  exit(2);
}

static void onSignal(int signal) {
  char text[128];
  int length =
      snprintf(text, sizeof text,
               "qjit_aarch64_runner: signal %d in kernel %u, call %u\n", signal,
               (unsigned)currentKernel, (unsigned)currentCall);
  if (length > 0)
    (void)!write(2, text, (size_t)length);
  _exit(3);
}

static void readBytes(void *to, size_t bytes) {
  if (bytes && fread(to, 1, bytes, job) != bytes)
    fail("truncated job file");
}
static uint64_t readU64(void) {
  uint64_t value;
  readBytes(&value, 8);
  return value;
}
static uint32_t readU32(void) {
  uint32_t value;
  readBytes(&value, 4);
  return value;
}
static void *allocate(size_t bytes) {
  void *memory = malloc(bytes ? bytes : 1);
  if (!memory)
    fail("out of memory");
  return memory;
}
/* `bytes` at `offset` past a 64-byte boundary with guards around them. */
static uint8_t *placeGuarded(uint8_t *storage, size_t offset) {
  uintptr_t base = (uintptr_t)storage;
  uintptr_t aligned =
      (base + kGuardBytes + kAlign - 1) & ~(uintptr_t)(kAlign - 1);
  return storage + (aligned - base) + offset;
}

/* A poisoned output of `bytes` at `offset` past a 64-byte boundary. */
typedef struct {
  uint8_t *storage, *data;
  size_t bytes;
} Output;
static Output makeOutput(size_t bytes, size_t offset) {
  size_t space = bytes + offset + 2 * kGuardBytes + kAlign;
  Output output = {allocate(space), NULL, bytes};
  memset(output.storage, kPoison, space);
  output.data = placeGuarded(output.storage, offset);
  return output;
}
/* Writes the output with its guards to `out`; counts a guard written. */
static void emitOutput(Output output, FILE *out, int *violations) {
  for (size_t b = 0; b < kGuardBytes; ++b)
    if (output.data[-1 - (ptrdiff_t)b] != kPoison ||
        output.data[output.bytes + b] != kPoison) {
      fprintf(stderr,
              "qjit_aarch64_runner: kernel %u call %u wrote into a guard\n",
              (unsigned)currentKernel, (unsigned)currentCall);
      ++*violations;
      break;
    }
  size_t guarded = output.bytes + 2 * kGuardBytes;
  if (fwrite(output.data - kGuardBytes, 1, guarded, out) != guarded)
    fail("cannot write the output file");
  free(output.storage);
}

static void *mapCode(const uint8_t *code, size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t mapped = (bytes + page - 1) / page * page;
  void *memory = mmap(NULL, mapped ? mapped : page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    fail("mmap failed");
  memcpy(memory, code, bytes);
  if (mprotect(memory, mapped ? mapped : page, PROT_READ | PROT_EXEC) != 0)
    fail("mprotect failed");
  __builtin___clear_cache((char *)memory, (char *)memory + bytes);
  return memory;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: qjit_aarch64_runner JOB OUT\n");
    return 1;
  }
  signal(SIGSEGV, onSignal);
  signal(SIGBUS, onSignal);
  signal(SIGILL, onSignal);
  signal(SIGFPE, onSignal);
  job = fopen(argv[1], "rb");
  FILE *out = fopen(argv[2], "wb");
  if (!job || !out)
    fail("cannot open the job or output file");
  char magic[8];
  readBytes(magic, 8);
  if (memcmp(magic, "QJITJOB2", 8) != 0)
    fail("not a job file");
  uint32_t kernels = readU32();
  int violations = 0;
  for (currentKernel = 0; currentKernel < kernels; ++currentKernel) {
    uint64_t codeBytes = readU64(), entryOffset = readU64();
    uint8_t *code = allocate(codeBytes);
    readBytes(code, codeBytes);
    if (entryOffset >= codeBytes)
      fail("entry offset outside the code");
    void *mapped = mapCode(code, codeBytes);
    free(code);
    const void *entry = (const uint8_t *)mapped + entryOffset;

    uint32_t abi = readU32();
    uint64_t extentCount = readU64();
    int64_t *extents = allocate(extentCount * 8);
    readBytes(extents, extentCount * 8);
    uint64_t scaleBytes = readU64();
    uint8_t *scales = allocate(scaleBytes);
    readBytes(scales, scaleBytes);
    uint64_t zeroCount = readU64();
    int64_t *zeroPoints = allocate(zeroCount * 8);
    readBytes(zeroPoints, zeroCount * 8);
    KernelParams params = {extentCount ? extents : NULL,
                           scaleBytes ? scales : NULL,
                           zeroCount ? zeroPoints : NULL};
    uint64_t parameters = 0, valueBytes = 0, writtenScaleBytes = 0;
    if (abi == kDynamicAbi) {
      parameters = readU64();
      valueBytes = readU64();
      writtenScaleBytes = readU64();
    }

    uint32_t calls = readU32();
    for (currentCall = 0; currentCall < calls; ++currentCall) {
      uint64_t n = readU64(), srcOffset = readU64(), srcBytes = readU64();
      size_t srcSpace = srcBytes + srcOffset + 2 * kGuardBytes + kAlign;
      uint8_t *srcStorage = allocate(srcSpace);
      memset(srcStorage, kPoison, srcSpace);
      uint8_t *src = placeGuarded(srcStorage, srcOffset);
      readBytes(src, srcBytes);
      uint8_t *srcCopy = allocate(srcSpace);
      memcpy(srcCopy, srcStorage, srcSpace);
      uint64_t dstOffset = readU64(), dstBytes = readU64();
      Output dst = makeOutput(dstBytes, dstOffset);

      if (abi == kDynamicAbi) {
        Output scalesOut = makeOutput(parameters * writtenScaleBytes, 0);
        Output zerosOut = makeOutput(parameters * 8, 0);
        uint8_t *low = allocate(parameters * valueBytes);
        uint8_t *high = allocate(parameters * valueBytes);
        DynamicKernelBuffers buffers = {
            scalesOut.data, (int64_t *)(void *)zerosOut.data, low, high};
        ((DynamicKernelFn)entry)(src, dst.data, (size_t)n, &params, &buffers);
        uint8_t unchanged = memcmp(srcCopy, srcStorage, srcSpace) == 0;
        if (fwrite(&unchanged, 1, 1, out) != 1)
          fail("cannot write the output file");
        emitOutput(dst, out, &violations);
        emitOutput(scalesOut, out, &violations);
        emitOutput(zerosOut, out, &violations);
        free(low);
        free(high);
      } else {
        if (abi == kParamsAbi)
          ((ParamKernelFn)entry)(src, dst.data, (size_t)n, &params);
        else
          ((KernelFn)entry)(src, dst.data, (size_t)n);
        uint8_t unchanged = memcmp(srcCopy, srcStorage, srcSpace) == 0;
        if (fwrite(&unchanged, 1, 1, out) != 1)
          fail("cannot write the output file");
        emitOutput(dst, out, &violations);
      }
      free(srcStorage);
      free(srcCopy);
    }
    free(extents);
    free(scales);
    free(zeroPoints);
    munmap(mapped, codeBytes);
  }
  if (fclose(out) != 0)
    fail("cannot write the output file");
  fclose(job);
  return violations ? 4 : 0;
}
