//===- Npy.cpp - numpy .npy files -----------------------------------------===//
//
// The header is a Python dict literal; numpy writes exactly
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline so the data starts 64-byte aligned. The
// reader accepts any spacing, key order, quote style and trailing comma,
// and old Python 2 'L' suffixes on shape entries, as numpy does.
//
//===----------------------------------------------------------------------===//
#include "Npy.h"

#include "FileIO.h"

#include <array>
#include <cstdint>
#include <optional>

namespace qjit::tool {

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
constexpr size_t kAlignment = 64;

struct DtypeInfo {
  NpyDtype dtype;
  std::string_view descr;
};

constexpr std::array<DtypeInfo, 10> kDtypes = {{
    {NpyDtype::F4, "<f4"},
    {NpyDtype::F2, "<f2"},
    {NpyDtype::F8, "<f8"},
    {NpyDtype::I1, "|i1"},
    {NpyDtype::U1, "|u1"},
    {NpyDtype::I2, "<i2"},
    {NpyDtype::U2, "<u2"},
    {NpyDtype::I4, "<i4"},
    {NpyDtype::U4, "<u4"},
    {NpyDtype::I8, "<i8"},
}};

Status invalid(std::string message) {
  return Status::error(ErrorCode::InvalidArgument,
                       "not a valid .npy file: " + std::move(message));
}

Status unsupported(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

/// What a descr string names, or why qjit cannot read it.
Expected<NpyDtype> dtypeFromDescr(std::string_view descr) {
  std::string quoted = "'" + std::string(descr) + "'";
  char order = descr.empty() ? '\0' : descr[0];
  std::string_view type = descr;
  if (order == '<' || order == '>' || order == '|' || order == '=')
    type.remove_prefix(1);
  else
    order = '='; // numpy accepts a bare type code as native order.
  if (!type.empty() && type[0] == 'O')
    return unsupported("object arrays (dtype " + quoted +
                       ") are not supported");
  for (const DtypeInfo &info : kDtypes) {
    if (info.descr.substr(1) != type)
      continue;
    bool multiByte = npyItemBytes(info.dtype) > 1;
    if (multiByte && order == '>')
      return unsupported("big-endian data (dtype " + quoted +
                         ") is not supported; save it as '" +
                         std::string(info.descr) + "'");
    if (multiByte && order == '|')
      return invalid("dtype " + quoted + " has no byte order");
    return info.dtype;
  }
  std::string known;
  for (const DtypeInfo &info : kDtypes)
    known += (known.empty() ? "" : " ") + std::string(info.descr);
  return unsupported("unsupported dtype " + quoted + " (qjit reads " + known +
                     ")");
}

/// The fields of a header dict.
struct Header {
  std::optional<NpyDtype> dtype;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;
};

/// A recursive-descent reader for the dict literal numpy writes.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Expected<Header> parse() {
    Header header;
    if (!consume('{'))
      return invalid("the header is not a dict");
    while (!consume('}')) {
      Expected<std::string> key = parseString();
      if (!key)
        return key.status();
      if (!consume(':'))
        return invalid("expected ':' after '" + *key + "' in the header");
      if (Status s = parseField(*key, header); !s)
        return s;
      if (!consume(',') && !peek('}'))
        return invalid("expected ',' or '}' in the header");
    }
    skipSpace();
    if (pos_ != text_.size())
      return invalid("unexpected text after the header dict");
    if (!header.dtype || !header.fortranOrder || !header.shape)
      return invalid("the header needs 'descr', 'fortran_order' and 'shape'");
    return header;
  }

private:
  Status parseField(const std::string &key, Header &header) {
    bool seen = (key == "descr" && header.dtype) ||
                (key == "fortran_order" && header.fortranOrder) ||
                (key == "shape" && header.shape);
    if (seen)
      return invalid("the header has '" + key + "' twice");
    if (key == "descr") {
      if (peek('['))
        return unsupported("structured dtypes are not supported");
      Expected<std::string> descr = parseString();
      if (!descr)
        return descr.status();
      Expected<NpyDtype> dtype = dtypeFromDescr(*descr);
      if (!dtype)
        return dtype.status();
      header.dtype = *dtype;
    } else if (key == "fortran_order") {
      if (consumeWord("True"))
        header.fortranOrder = true;
      else if (consumeWord("False"))
        header.fortranOrder = false;
      else
        return invalid("'fortran_order' must be True or False");
    } else if (key == "shape") {
      Expected<std::vector<int64_t>> shape = parseShape();
      if (!shape)
        return shape.status();
      header.shape = std::move(*shape);
    } else {
      return invalid("unexpected key '" + key + "' in the header");
    }
    return Status::ok();
  }

  Expected<std::string> parseString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return invalid("expected a string in the header");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      return invalid("unterminated string in the header");
    std::string value(text_.substr(pos_, end - pos_));
    if (value.find('\\') != std::string::npos)
      return invalid("escapes in header strings are not supported");
    pos_ = end + 1;
    return value;
  }

  /// A tuple of non-negative integers whose product fits in 63 bits.
  Expected<std::vector<int64_t>> parseShape() {
    if (!consume('('))
      return invalid("'shape' must be a tuple");
    std::vector<int64_t> shape;
    uint64_t product = 1;
    while (!consume(')')) {
      skipSpace();
      int64_t dim = 0;
      size_t start = pos_;
      for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9';
           ++pos_)
        if (__builtin_mul_overflow(dim, 10, &dim) ||
            __builtin_add_overflow(dim, text_[pos_] - '0', &dim))
          return invalid("a dimension in 'shape' is too large");
      if (pos_ == start)
        return invalid("'shape' must hold non-negative integers");
      if (pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_; // Python 2 long literal.
      shape.push_back(dim);
      if (__builtin_mul_overflow(product, static_cast<uint64_t>(dim),
                                 &product) ||
          product > static_cast<uint64_t>(INT64_MAX))
        return invalid("the shape's element count overflows");
      if (!consume(',') && !peek(')'))
        return invalid("expected ',' or ')' in 'shape'");
    }
    return shape;
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\n'))
      ++pos_;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool consume(char c) {
    if (!peek(c))
      return false;
    ++pos_;
    return true;
  }
  bool consumeWord(std::string_view word) {
    skipSpace();
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t readLittleEndian(const uint8_t *bytes, unsigned count) {
  uint32_t value = 0;
  for (unsigned i = 0; i < count; ++i)
    value |= static_cast<uint32_t>(bytes[i]) << (8 * i);
  return value;
}

/// Python's repr of a shape tuple: (), (5,), (2, 3).
std::string shapeTuple(std::span<const int64_t> shape) {
  std::string tuple = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    tuple += (i ? ", " : "") + std::to_string(shape[i]);
  return tuple + (shape.size() == 1 ? ",)" : ")");
}

} // namespace

std::string_view npyDescr(NpyDtype dtype) {
  return kDtypes[static_cast<size_t>(dtype)].descr;
}

unsigned npyItemBytes(NpyDtype dtype) {
  return static_cast<unsigned>(npyDescr(dtype)[2] - '0');
}

uint64_t npyElementCount(std::span<const int64_t> shape) {
  uint64_t count = 1;
  for (int64_t dim : shape)
    count *= static_cast<uint64_t>(dim);
  return count;
}

Expected<NpyArray> parseNpy(std::vector<uint8_t> file) {
  std::string_view bytes(reinterpret_cast<const char *>(file.data()),
                         file.size());
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return invalid("it does not start with the magic string \\x93NUMPY");
  if (bytes.size() < 10)
    return invalid("the file ends inside the preamble");
  unsigned major = file[6], minor = file[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return unsupported("unsupported .npy format version " +
                       std::to_string(major) + "." + std::to_string(minor) +
                       " (qjit reads 1.0, 2.0 and 3.0)");
  unsigned lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = 8 + lengthBytes;
  if (file.size() < headerStart)
    return invalid("the file ends inside the preamble");
  size_t headerLength = readLittleEndian(&file[8], lengthBytes);
  if (file.size() - headerStart < headerLength)
    return invalid("the header length (" + std::to_string(headerLength) +
                   " bytes) runs past the end of the file");
  Expected<Header> header =
      HeaderParser(bytes.substr(headerStart, headerLength)).parse();
  if (!header)
    return header.status();
  if (*header->fortranOrder)
    return unsupported("Fortran-order arrays are not supported; save a "
                       "C-order array (numpy.ascontiguousarray)");

  NpyArray array;
  array.dtype = *header->dtype;
  array.shape = std::move(*header->shape);
  size_t dataStart = headerStart + headerLength;
  uint64_t needed = 0;
  if (__builtin_mul_overflow(npyElementCount(array.shape),
                             npyItemBytes(array.dtype), &needed))
    return invalid("shape " + shapeTuple(array.shape) + " is too large");
  size_t actual = file.size() - dataStart;
  if (needed != actual)
    return invalid("shape " + shapeTuple(array.shape) + " of '" +
                   std::string(npyDescr(array.dtype)) + "' needs " +
                   std::to_string(needed) + " data bytes, but the file has " +
                   std::to_string(actual));
  file.erase(file.begin(), file.begin() + static_cast<ptrdiff_t>(dataStart));
  array.data = std::move(file);
  return array;
}

Expected<NpyArray> readNpy(const std::string &path) {
  Expected<std::vector<uint8_t>> file = readFile(path);
  if (!file)
    return file.status();
  Expected<NpyArray> array = parseNpy(std::move(*file));
  if (!array)
    return Status::error(array.status().code(),
                         "'" + path + "': " + array.status().message());
  return array;
}

std::vector<uint8_t> npyHeader(NpyDtype dtype, std::span<const int64_t> shape) {
  std::string dict =
      "{'descr': '" + std::string(npyDescr(dtype)) +
      "', 'fortran_order': False, 'shape': " + shapeTuple(shape) + ", }";
  // Spaces and a final newline pad the header so the data is aligned.
  auto paddedLength = [&](size_t preamble) {
    size_t length = dict.size() + 1;
    return length +
           (kAlignment - (preamble + length) % kAlignment) % kAlignment;
  };
  bool version2 = paddedLength(10) > 65535; // 1.0 has a 16-bit length.
  dict.append(paddedLength(version2 ? 12 : 10) - dict.size() - 1, ' ');
  dict += '\n';
  std::vector<uint8_t> header(kMagic.begin(), kMagic.end());
  header.push_back(version2 ? 2 : 1);
  header.push_back(0);
  for (unsigned i = 0; i < (version2 ? 4u : 2u); ++i)
    header.push_back(static_cast<uint8_t>(dict.size() >> (8 * i)));
  header.insert(header.end(), dict.begin(), dict.end());
  return header;
}

Status writeNpy(const std::string &path, NpyDtype dtype,
                std::span<const int64_t> shape, std::span<const uint8_t> data) {
  if (npyElementCount(shape) * npyItemBytes(dtype) != data.size())
    return Status::error(ErrorCode::InvalidArgument,
                         "npy data size does not match its shape");
  std::vector<uint8_t> header = npyHeader(dtype, shape);
  std::array<std::span<const uint8_t>, 2> pieces = {header, data};
  return writeOutputFile(path, pieces);
}

} // namespace qjit::tool
