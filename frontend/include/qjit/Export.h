/*===- qjit/Export.h - Which symbols libqjit.so exports -------------------===*
 *
 * libqjit.so is built with hidden visibility: only declarations marked
 * QJIT_API (the C API and the public C++ API) are exported, so its private
 * code and the copies of asmjit it contains never clash with a host
 * program's. In the static libraries the mark changes nothing.
 *
 *===----------------------------------------------------------------------===*/
#ifndef QJIT_EXPORT_H
#define QJIT_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define QJIT_API __attribute__((visibility("default")))
#else
#define QJIT_API
#endif

#endif /* QJIT_EXPORT_H */
