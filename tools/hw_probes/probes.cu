// probes.cu -- hardware fragment probes for linlayout (see README.md beside this file).
//
// This program is a deliberately dumb *executor*: run_probes.py writes, per probe, a binary
// file of inputs (register images and shared-memory images, one "experiment" per CUDA block),
// this program runs exactly one instruction per experiment on them and writes the raw 32-bit
// results back.  All knowledge of encodings, one-hot designs and decoding lives in
// run_probes.py / probelib.py, so that the same logic can be unit-tested on a CPU simulator.
//
// Build (sm_90a is needed for wgmma):
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o probes probes.cu
// Use:
//   probes --list             probe names, input sections (words per experiment), output words
//   probes --info             device / driver / runtime facts (key=value lines)
//   probes DIR NAME [NAME..]  run probe NAME on DIR/NAME.in, write DIR/NAME.out
//
// Input file (little-endian uint32 words):
//   magic 0x42505748 ("HWPB"), version 1, n_exp, n_sections, n_params (= 8),
//   per section: words_per_experiment, broadcast (1: one copy shared by all experiments),
//   params[8], then the sections' data in order.
// Output file: n_exp * out_words uint32 words, experiment-major.
//
// Probe methods (what the inputs mean) are documented in README.md and probelib.py; below,
// each kernel only says which registers / shared memory it fills and which it reads back.

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

constexpr uint32_t kMagic = 0x42505748u;
constexpr uint32_t kVersion = 1;
constexpr int kNumParams = 8;

struct Params {
  uint32_t v[kNumParams];
};

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------------------------------------
// mma.sync: one warp per experiment.  Section 0 holds, per lane, 10 words: a0..a3, b0, b1,
// c0..c3 (the PTX operand registers in order).  Output: d0..d3 per lane.
// ---------------------------------------------------------------------------------------------

enum MmaKind { kMmaF16 = 0, kMmaS8 = 1, kMmaTf32 = 2 };

template <int KIND>
__global__ void k_mma(const uint32_t* __restrict__ regs, int stride, uint32_t* __restrict__ out) {
  const int e = blockIdx.x, lane = threadIdx.x;
  const uint32_t* r = regs + (size_t)e * stride + lane * 10;
  uint32_t a0 = r[0], a1 = r[1], a2 = r[2], a3 = r[3], b0 = r[4], b1 = r[5];
  uint32_t* o = out + ((size_t)e * 32 + lane) * 4;
  if (KIND == kMmaS8) {
    int c0 = (int)r[6], c1 = (int)r[7], c2 = (int)r[8], c3 = (int)r[9];
    int d0, d1, d2, d3;
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    o[0] = (uint32_t)d0; o[1] = (uint32_t)d1; o[2] = (uint32_t)d2; o[3] = (uint32_t)d3;
  } else {
    float c0 = __uint_as_float(r[6]), c1 = __uint_as_float(r[7]), c2 = __uint_as_float(r[8]),
          c3 = __uint_as_float(r[9]);
    float d0, d1, d2, d3;
    if (KIND == kMmaF16) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
          "{%10, %11, %12, %13};\n"
          : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
          "{%10, %11, %12, %13};\n"
          : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    }
    o[0] = __float_as_uint(d0); o[1] = __float_as_uint(d1); o[2] = __float_as_uint(d2); o[3] = __float_as_uint(d3);
  }
}

// ---------------------------------------------------------------------------------------------
// wgmma (sm_90a): one warpgroup (128 threads) per experiment, D = A * B (scale-d = 0).
// Shared-memory operands use the no-swizzle ("interleave", layout type 0) K-major canonical
// layout; run_probes.py writes the images and passes the leading/stride byte offsets (LBO, SBO)
// in params: v[0]=LBO_A, v[1]=SBO_A, v[2]=LBO_B, v[3]=SBO_B (bytes).
// Matrix descriptor (PTX ISA "Matrix Descriptor Format"): bits 0-13 start address >> 4,
// 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 base offset (0), 62-63 swizzle mode (0 = none).
// ---------------------------------------------------------------------------------------------

constexpr int kSmemAWords = 2048;  // 8 KiB: room for the image under either LBO/SBO reading
constexpr int kSmemBWords = 512;   // 2 KiB

__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr >> 4) & 0x3FFF) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
         ((uint64_t)((sbo >> 4) & 0x3FFF) << 32);
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HWP_WGMMA 1
#endif

#ifdef HWP_WGMMA
__device__ __forceinline__ void wgmma_ss_f16_n8(float* d, uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_rs_f16_n8(float* d, const uint32_t* a, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_ss_f16_n16(float* d, uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(da), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_rs_f16_n16(float* d, const uint32_t* a, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_ss_f16_n32(float* d, uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_rs_f16_n32(float* d, const uint32_t* a, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_ss_e4m3_n8(float* d, uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0, %1, %2, %3}, %4, %5, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_rs_e4m3_n8(float* d, const uint32_t* a, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_ss_e4m3_n16(float* d, uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(da), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_rs_e4m3_n16(float* d, const uint32_t* a, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_ss_e4m3_n32(float* d, uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(0));
}

__device__ __forceinline__ void wgmma_rs_e4m3_n32(float* d, const uint32_t* a, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(0));
}
#endif  // HWP_WGMMA

__device__ __forceinline__ void wgmma_fence() {
#ifdef HWP_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit_and_wait() {
#ifdef HWP_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
}

template <bool E4M3, int N>
__device__ __forceinline__ void wgmma_ss(float* d, uint64_t da, uint64_t db) {
#ifdef HWP_WGMMA
  if constexpr (!E4M3 && N == 8) wgmma_ss_f16_n8(d, da, db);
  if constexpr (!E4M3 && N == 16) wgmma_ss_f16_n16(d, da, db);
  if constexpr (!E4M3 && N == 32) wgmma_ss_f16_n32(d, da, db);
  if constexpr (E4M3 && N == 8) wgmma_ss_e4m3_n8(d, da, db);
  if constexpr (E4M3 && N == 16) wgmma_ss_e4m3_n16(d, da, db);
  if constexpr (E4M3 && N == 32) wgmma_ss_e4m3_n32(d, da, db);
#else
  __trap();  // built without sm_90a: wgmma unavailable
#endif
}

template <bool E4M3, int N>
__device__ __forceinline__ void wgmma_rs(float* d, const uint32_t* a, uint64_t db) {
#ifdef HWP_WGMMA
  if constexpr (!E4M3 && N == 8) wgmma_rs_f16_n8(d, a, db);
  if constexpr (!E4M3 && N == 16) wgmma_rs_f16_n16(d, a, db);
  if constexpr (!E4M3 && N == 32) wgmma_rs_f16_n32(d, a, db);
  if constexpr (E4M3 && N == 8) wgmma_rs_e4m3_n8(d, a, db);
  if constexpr (E4M3 && N == 16) wgmma_rs_e4m3_n16(d, a, db);
  if constexpr (E4M3 && N == 32) wgmma_rs_e4m3_n32(d, a, db);
#else
  __trap();
#endif
}

// SS form: section 0 = shared-memory image of A (kSmemAWords words), section 1 = image of B
// (kSmemBWords words).  Output: the N/2 accumulator registers of each of the 128 threads.
template <bool E4M3, int N>
__global__ void __launch_bounds__(128) k_wgmma_ss(const uint32_t* __restrict__ sec_a, int stride_a,
                                                  const uint32_t* __restrict__ sec_b, int stride_b, Params p,
                                                  uint32_t* __restrict__ out) {
  __shared__ __align__(1024) uint32_t smem_a[kSmemAWords];
  __shared__ __align__(1024) uint32_t smem_b[kSmemBWords];
  const int e = blockIdx.x, tid = threadIdx.x;
  for (int i = tid; i < kSmemAWords; i += 128) smem_a[i] = sec_a[(size_t)e * stride_a + i];
  for (int i = tid; i < kSmemBWords; i += 128) smem_b[i] = sec_b[(size_t)e * stride_b + i];
  // Generic-proxy writes must be made visible to the async proxy that wgmma reads through.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const uint64_t da = make_desc(smem_addr(smem_a), p.v[0], p.v[1]);
  const uint64_t db = make_desc(smem_addr(smem_b), p.v[2], p.v[3]);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  wgmma_fence();
  wgmma_ss<E4M3, N>(d, da, db);
  wgmma_commit_and_wait();
  uint32_t* o = out + ((size_t)e * 128 + tid) * (N / 2);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) o[i] = __float_as_uint(d[i]);
}

// RS form: section 0 = the four A registers of each of the 128 threads (thread-major),
// section 1 = image of B.  Output as for the SS form.
template <bool E4M3, int N>
__global__ void __launch_bounds__(128) k_wgmma_rs(const uint32_t* __restrict__ sec_a, int stride_a,
                                                  const uint32_t* __restrict__ sec_b, int stride_b, Params p,
                                                  uint32_t* __restrict__ out) {
  __shared__ __align__(1024) uint32_t smem_b[kSmemBWords];
  const int e = blockIdx.x, tid = threadIdx.x;
  for (int i = tid; i < kSmemBWords; i += 128) smem_b[i] = sec_b[(size_t)e * stride_b + i];
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  uint32_t a[4];
  const uint32_t* ar = sec_a + (size_t)e * stride_a + tid * 4;
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = ar[i];
  const uint64_t db = make_desc(smem_addr(smem_b), p.v[2], p.v[3]);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  wgmma_fence();
  wgmma_rs<E4M3, N>(d, a, db);
  wgmma_commit_and_wait();
  uint32_t* o = out + ((size_t)e * 128 + tid) * (N / 2);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) o[i] = __float_as_uint(d[i]);
}

// ---------------------------------------------------------------------------------------------
// ldmatrix / stmatrix (.m8n8, .b16): one warp per experiment over a 512-byte shared buffer of
// 32 rows of 16 bytes.  Section 0 = row index per lane (lane l passes the address of row
// rowidx[l]), section 1 = for ldmatrix the buffer's contents (128 words), for stmatrix the
// four source registers per lane (lane-major).  Output (128 words): for ldmatrix the
// destination registers r0..r3 per lane (unused ones 0), for stmatrix the buffer afterwards
// (pre-filled with 0xFFFF halves, so untouched elements read 0xFFFF).
// ---------------------------------------------------------------------------------------------

template <int NUM, bool TRANS>
__global__ void k_ldmatrix(const uint32_t* __restrict__ rowidx, int stride_r, const uint32_t* __restrict__ img,
                           int stride_i, uint32_t* __restrict__ out) {
  __shared__ __align__(128) uint32_t buf[128];
  const int e = blockIdx.x, lane = threadIdx.x;
  for (int i = lane; i < 128; i += 32) buf[i] = img[(size_t)e * stride_i + i];
  __syncwarp();
  const uint32_t addr = smem_addr(buf) + (rowidx[(size_t)e * stride_r + lane] & 31u) * 16u;
  uint32_t r[4] = {0u, 0u, 0u, 0u};
  if constexpr (NUM == 1 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr) : "memory");
  if constexpr (NUM == 2 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
  if constexpr (NUM == 4 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
  if constexpr (NUM == 1 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr) : "memory");
  if constexpr (NUM == 2 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
  if constexpr (NUM == 4 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
  uint32_t* o = out + ((size_t)e * 32 + lane) * 4;
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = r[i];
}

template <int NUM, bool TRANS>
__global__ void k_stmatrix(const uint32_t* __restrict__ rowidx, int stride_r, const uint32_t* __restrict__ regs,
                           int stride_g, uint32_t* __restrict__ out) {
  __shared__ __align__(128) uint32_t buf[128];
  const int e = blockIdx.x, lane = threadIdx.x;
  for (int i = lane; i < 128; i += 32) buf[i] = 0xFFFFFFFFu;
  __syncwarp();
  const uint32_t addr = smem_addr(buf) + (rowidx[(size_t)e * stride_r + lane] & 31u) * 16u;
  const uint32_t* g = regs + (size_t)e * stride_g + lane * 4;
  const uint32_t r0 = g[0], r1 = g[1], r2 = g[2], r3 = g[3];
  if constexpr (NUM == 1 && !TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(addr), "r"(r0) : "memory");
  if constexpr (NUM == 2 && !TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r0), "r"(r1)
                 : "memory");
  if constexpr (NUM == 4 && !TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0),
                 "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
  if constexpr (NUM == 1 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\n" ::"r"(addr), "r"(r0) : "memory");
  if constexpr (NUM == 2 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r0),
                 "r"(r1)
                 : "memory");
  if constexpr (NUM == 4 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
  __syncwarp();
  for (int i = lane; i < 128; i += 32) out[(size_t)e * 128 + i] = buf[i];
}

// ---------------------------------------------------------------------------------------------
// Host side: probe registry, file I/O, launches.
// ---------------------------------------------------------------------------------------------

struct Launch {
  const uint32_t* sec[2];
  int stride[2];
  Params p;
  int n_exp;
  uint32_t* out;
};

typedef void (*LaunchFn)(const Launch&);

struct Probe {
  const char* name;
  int nsec;
  int sec_words[2];
  int out_words;
  LaunchFn launch;
};

template <int KIND>
void launch_mma(const Launch& L) {
  k_mma<KIND><<<L.n_exp, 32>>>(L.sec[0], L.stride[0], L.out);
}
template <bool E4M3, int N>
void launch_wgmma_ss(const Launch& L) {
  k_wgmma_ss<E4M3, N><<<L.n_exp, 128>>>(L.sec[0], L.stride[0], L.sec[1], L.stride[1], L.p, L.out);
}
template <bool E4M3, int N>
void launch_wgmma_rs(const Launch& L) {
  k_wgmma_rs<E4M3, N><<<L.n_exp, 128>>>(L.sec[0], L.stride[0], L.sec[1], L.stride[1], L.p, L.out);
}
template <int NUM, bool TRANS>
void launch_ldmatrix(const Launch& L) {
  k_ldmatrix<NUM, TRANS><<<L.n_exp, 32>>>(L.sec[0], L.stride[0], L.sec[1], L.stride[1], L.out);
}
template <int NUM, bool TRANS>
void launch_stmatrix(const Launch& L) {
  k_stmatrix<NUM, TRANS><<<L.n_exp, 32>>>(L.sec[0], L.stride[0], L.sec[1], L.stride[1], L.out);
}

#define MMA_PROBE(name, kind) {name, 1, {320, 0}, 128, launch_mma<kind>}
#define WG_PROBES(ab, e4m3, n)                                                          \
  {"wgmma_ss_" ab "_n" #n, 2, {kSmemAWords, kSmemBWords}, 64 * n, launch_wgmma_ss<e4m3, n>}, \
  {"wgmma_rs_" ab "_n" #n, 2, {512, kSmemBWords}, 64 * n, launch_wgmma_rs<e4m3, n>}
#define MATRIX_PROBES(op, launcher)                                                                     \
  {op "_x1", 2, {32, 128}, 128, launcher<1, false>}, {op "_x2", 2, {32, 128}, 128, launcher<2, false>},   \
  {op "_x4", 2, {32, 128}, 128, launcher<4, false>}, {op "_x1_trans", 2, {32, 128}, 128, launcher<1, true>}, \
  {op "_x2_trans", 2, {32, 128}, 128, launcher<2, true>}, {op "_x4_trans", 2, {32, 128}, 128, launcher<4, true>}

static const Probe kProbes[] = {
    MMA_PROBE("mma_m16n8k16_f16", kMmaF16),
    MMA_PROBE("mma_m16n8k32_s8", kMmaS8),
    MMA_PROBE("mma_m16n8k8_tf32", kMmaTf32),
    WG_PROBES("f16", false, 8),
    WG_PROBES("f16", false, 16),
    WG_PROBES("f16", false, 32),
    WG_PROBES("e4m3", true, 8),
    WG_PROBES("e4m3", true, 16),
    WG_PROBES("e4m3", true, 32),
    MATRIX_PROBES("ldmatrix", launch_ldmatrix),
    MATRIX_PROBES("stmatrix", launch_stmatrix),
};

static const Probe* find_probe(const char* name) {
  for (const Probe& p : kProbes)
    if (std::strcmp(p.name, name) == 0) return &p;
  return nullptr;
}

static bool read_words(const std::string& path, std::vector<uint32_t>& w) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fseek(f, 0, SEEK_END);
  long n = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (n < 0 || n % 4) {
    std::fclose(f);
    return false;
  }
  w.resize((size_t)n / 4);
  size_t got = w.empty() ? 0 : std::fread(w.data(), 4, w.size(), f);
  std::fclose(f);
  return got == w.size();
}

// Returns 0 on success, 1 on a bad input (other probes may still run), 3 on a CUDA error
// (the context may be unusable: the caller stops and run_probes.py retries the rest one by one).
static int run_probe(const std::string& dir, const Probe& P) {
  std::vector<uint32_t> w;
  const std::string in = dir + "/" + P.name + ".in", outp = dir + "/" + P.name + ".out";
  if (!read_words(in, w)) {
    std::printf("FAIL %s: cannot read %s\n", P.name, in.c_str());
    return 1;
  }
  if (w.size() < 5 || w[0] != kMagic || w[1] != kVersion) {
    std::printf("FAIL %s: bad header in %s\n", P.name, in.c_str());
    return 1;
  }
  const uint32_t n_exp = w[2], nsec = w[3], npar = w[4];
  if ((int)nsec != P.nsec || npar != kNumParams || n_exp == 0 || n_exp > (1u << 24) ||
      w.size() < 5 + 2 * nsec + npar) {
    std::printf("FAIL %s: header mismatch (n_exp=%u nsec=%u npar=%u)\n", P.name, n_exp, nsec, npar);
    return 1;
  }
  size_t off = 5 + 2 * nsec + npar;
  Launch L{};
  L.n_exp = (int)n_exp;
  for (int i = 0; i < kNumParams; ++i) L.p.v[i] = w[5 + 2 * nsec + i];
  std::vector<uint32_t*> dev;
  int rc = 0;
  for (uint32_t s = 0; s < nsec; ++s) {
    const uint32_t words = w[5 + 2 * s], bcast = w[6 + 2 * s];
    if ((int)words != P.sec_words[s]) {
      std::printf("FAIL %s: section %u has %u words per experiment, expected %d\n", P.name, s, words,
                  P.sec_words[s]);
      rc = 1;
      break;
    }
    const size_t total = bcast ? words : (size_t)words * n_exp;
    if (off + total > w.size()) {
      std::printf("FAIL %s: file too short for section %u\n", P.name, s);
      rc = 1;
      break;
    }
    uint32_t* d = nullptr;
    cudaError_t err = cudaMalloc(&d, total * 4);
    if (err == cudaSuccess) err = cudaMemcpy(d, w.data() + off, total * 4, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
      std::printf("FAIL %s: CUDA error %s (%s)\n", P.name, cudaGetErrorName(err), cudaGetErrorString(err));
      return 3;
    }
    dev.push_back(d);
    L.sec[s] = d;
    L.stride[s] = bcast ? 0 : (int)words;
    off += total;
  }
  if (rc == 0 && off != w.size()) {
    std::printf("FAIL %s: %zu trailing words in input\n", P.name, w.size() - off);
    rc = 1;
  }
  if (rc) {
    for (uint32_t* d : dev) cudaFree(d);
    return rc;
  }
  const size_t out_words = (size_t)P.out_words * n_exp;
  uint32_t* dout = nullptr;
  cudaError_t err = cudaMalloc(&dout, out_words * 4);
  if (err == cudaSuccess) err = cudaMemset(dout, 0xA5, out_words * 4);  // poison: unwritten words show
  if (err != cudaSuccess) {
    std::printf("FAIL %s: CUDA error %s (%s)\n", P.name, cudaGetErrorName(err), cudaGetErrorString(err));
    return 3;
  }
  L.out = dout;
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0);
  P.launch(L);
  err = cudaGetLastError();
  cudaEventRecord(t1);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::printf("FAIL %s: kernel error %s (%s)\n", P.name, cudaGetErrorName(err), cudaGetErrorString(err));
    std::fflush(stdout);
    return 3;
  }
  float ms = 0.f;
  cudaEventElapsedTime(&ms, t0, t1);
  std::vector<uint32_t> h(out_words);
  err = cudaMemcpy(h.data(), dout, out_words * 4, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::printf("FAIL %s: CUDA error %s (%s)\n", P.name, cudaGetErrorName(err), cudaGetErrorString(err));
    return 3;
  }
  for (uint32_t* d : dev) cudaFree(d);
  cudaFree(dout);
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  FILE* f = std::fopen(outp.c_str(), "wb");
  if (!f || std::fwrite(h.data(), 4, h.size(), f) != h.size()) {
    std::printf("FAIL %s: cannot write %s\n", P.name, outp.c_str());
    if (f) std::fclose(f);
    return 1;
  }
  std::fclose(f);
  std::printf("OK %s n_exp=%u kernel_ms=%.3f\n", P.name, n_exp, ms);
  std::fflush(stdout);
  return 0;
}

static int print_info() {
  int rt = 0, drv = 0, n = 0;
  cudaRuntimeGetVersion(&rt);
  cudaError_t e1 = cudaDriverGetVersion(&drv);
  std::printf("runtime_version=%d\n", rt);
  std::printf("driver_api_version=%d\n", e1 == cudaSuccess ? drv : -1);
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess || n == 0) {
    std::printf("error=no CUDA device: %s (%s)\n", err == cudaSuccess ? "cudaSuccess" : cudaGetErrorName(err),
                err == cudaSuccess ? "device count is 0" : cudaGetErrorString(err));
    return 2;
  }
  cudaDeviceProp prop;
  err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) {
    std::printf("error=cudaGetDeviceProperties: %s\n", cudaGetErrorString(err));
    return 2;
  }
  std::printf("device_count=%d\n", n);
  std::printf("name=%s\n", prop.name);
  std::printf("compute_capability=%d.%d\n", prop.major, prop.minor);
  std::printf("multiprocessors=%d\n", prop.multiProcessorCount);
  std::printf("shared_mem_per_block_optin=%zu\n", prop.sharedMemPerBlockOptin);
  std::printf("total_global_mem=%zu\n", prop.totalGlobalMem);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const Probe& p : kProbes) {
      std::printf("%s nsec=%d", p.name, p.nsec);
      for (int s = 0; s < p.nsec; ++s) std::printf(" sec%d=%d", s, p.sec_words[s]);
      std::printf(" out=%d\n", p.out_words);
    }
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "--info") == 0) return print_info();
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s --list | --info | DIR NAME [NAME...]\n", argv[0]);
    return 64;
  }
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess || n == 0) {
    std::printf("FAIL all: no CUDA device (%s)\n", err == cudaSuccess ? "device count is 0" : cudaGetErrorString(err));
    return 2;
  }
  int worst = 0;
  for (int i = 2; i < argc; ++i) {
    const Probe* P = find_probe(argv[i]);
    if (!P) {
      std::printf("FAIL %s: unknown probe\n", argv[i]);
      worst = worst < 1 ? 1 : worst;
      continue;
    }
    int rc = run_probe(argv[1], *P);
    if (rc == 3) return 3;  // CUDA error: context may be dead; the caller retries the rest
    if (rc > worst) worst = rc;
  }
  return worst;
}
