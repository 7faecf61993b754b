//===- Nf4Table.h - The NF4 quantile table tests use ------------*- C++ -*-===//
//
// QLoRA's 16 NormalFloat4 levels (as bitsandbytes ships them), the
// headline !quant.quantile table of docs/semantics.md section 8.4.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_SUPPORT_NF4TABLE_H
#define QJIT_TESTS_SUPPORT_NF4TABLE_H

#include <string_view>
#include <vector>

namespace qjit::testing {

inline const std::vector<double> &nf4Table() {
  static const std::vector<double> table = {-1.0,
                                            -0.6961928009986877,
                                            -0.5250730514526367,
                                            -0.39491748809814453,
                                            -0.28444138169288635,
                                            -0.18477343022823334,
                                            -0.09105003625154495,
                                            0.0,
                                            0.07958029955625534,
                                            0.16093020141124725,
                                            0.24611230194568634,
                                            0.33791524171829224,
                                            0.44070982933044434,
                                            0.5626170039176941,
                                            0.7229568362236023,
                                            1.0};
  return table;
}

/// The same table as a standalone !quant.quantile type (packed u4 codes).
inline constexpr std::string_view kNf4Quantile =
    "!quant.quantile<u4:f32, {-1.0, -0.6961928009986877, "
    "-0.5250730514526367, -0.39491748809814453, -0.28444138169288635, "
    "-0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, "
    "0.16093020141124725, 0.24611230194568634, 0.33791524171829224, "
    "0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0}>";

} // namespace qjit::testing

#endif
