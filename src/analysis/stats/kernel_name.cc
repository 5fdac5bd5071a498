// Kernel names made short enough for a legend, a row label or a table cell.
#include "analysis/stats/kernel_name.h"

#include <algorithm>
#include <vector>

#include "base/utf8_text.h"

namespace nodescope::analysis {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// Where the parameter list of a demangled function name starts ("f<int>(float*)" -> 6), or npos
// when the name does not end in one. "Memcpy DtoD (Device -> Device)" has none: a space precedes.
size_t ParameterListStart(std::string_view s) {
  if (s.empty() || s.back() != ')') return std::string_view::npos;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') {
      ++depth;
    } else if (s[i] == '(' && --depth == 0) {
      return i > 0 && s[i - 1] != ' ' ? i : std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

// What is nested in template arguments collapsed, top-level arguments kept (they tell instances
// apart): "k<4, F<float>, G(int)::L>" -> "k<4, F<…>, G(…)::L>".
std::string CollapseNestedTemplateArguments(std::string_view s) {
  std::string out;
  int angle = 0, paren = 0;  // depths; a '(' outside template arguments does not count
  auto inside = [&] { return angle >= 2 || (angle >= 1 && paren >= 1); };
  for (const char c : s) {
    const bool was_inside = inside();
    if (c == '<') ++angle;
    if (c == '(' && angle > 0) ++paren;
    if (c == '>' && angle > 0) --angle;
    if (c == ')' && paren > 0) --paren;
    if (!was_inside) out += c;
    if (!was_inside && inside()) out += kEllipsis;
    if (was_inside && !inside()) out += c;
  }
  return angle == 0 ? out : std::string(s);  // unbalanced: not a template, keep it
}

// "a<b<c>, d>::f<e>" -> "a<…>::f<…>". An argument list that is one identifier stays: in
// "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>" it is the name.
std::string CollapseTemplateArguments(std::string_view s) {
  std::string out;
  int depth = 0;
  size_t open = 0;  // where the current top-level argument list starts in `s`
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') {
      if (depth++ == 0) open = i;
    } else if (c == '>' && depth > 0) {
      if (--depth == 0) {
        std::string_view args = s.substr(open + 1, i - open - 1);
        bool identifier =
            !args.empty() && args.find_first_not_of(
                                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789_") == std::string_view::npos;
        // Appended piece by piece: `"<" + std::string(...)` is misread by g++ 12 at -O3 as
        // an overlapping memcpy (-Wrestrict, GCC bug 105329).
        out += '<';
        out += identifier ? args : kEllipsis;
        out += '>';
      }
    } else if (depth == 0) {
      out += c;
    }
  }
  return depth == 0 ? out : std::string(s);  // unbalanced: not a template, keep it
}

// The last "::"-separated component outside <> and (): "a::(anonymous namespace)::f<x::y>" ->
// "f<x::y>".
std::string_view LastComponent(std::string_view s) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (depth == 0 && c == ':' && s[i + 1] == ':') start = i + 2;
  }
  return start < s.size() ? s.substr(start) : s;
}

}  // namespace

std::string CappedName(std::string_view name, size_t max_bytes) {
  return ShortenMiddleToBytes(name, max_bytes);
}

namespace {

// Names with more tokens or template arguments than this are cut in the middle: dropping parts
// one at a time costs the square of their number.
constexpr size_t kMaxParts = 64;

bool IsIdentifier(std::string_view s) {
  return !s.empty() && s.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789_") == std::string_view::npos;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A tile or warp shape: "128x64", "tilesize64x64x8", "8x5".
bool HasShape(std::string_view token) {
  for (size_t i = 1; i + 1 < token.size(); ++i) {
    if (token[i] == 'x' && IsDigit(token[i - 1]) && IsDigit(token[i + 1])) return true;
  }
  return false;
}

// An identifier of '_'-separated tokens (cuBLAS and CUTLASS kernels:
// "sm80_xmma_gemm_f32f32_..._tilesize64x64x8_stage3_warpsize1x4x1_..._cublas") cut to
// `max_chars` by dropping whole tokens, those that tell kernels apart least first: kept are the
// family (the first tokens, up to four, before the first shape), the shapes, then the layout
// ("tn") and the last token. A run of dropped tokens shows as "…". Empty when even the family
// and one shape do not fit.
std::string ElideTokens(std::string_view id, size_t max_chars) {
  std::vector<std::string_view> tokens;
  for (size_t start = 0;;) {
    const size_t end = id.find('_', start);
    tokens.push_back(id.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (tokens.size() > kMaxParts) return "";  // not a kernel's name; quadratic below
  size_t first_shape = tokens.size();
  for (size_t i = 0; i < tokens.size() && first_shape == tokens.size(); ++i) {
    if (HasShape(tokens[i])) first_shape = i;
  }
  // Levels: dropped from the lowest, from the right within a level.
  const size_t family = std::min<size_t>(first_shape, 4);
  std::vector<int> score(tokens.size(), 1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    if (i == 0) {
      score[i] = 5;
    } else if (i == first_shape) {
      score[i] = 4;
    } else if (i < family || HasShape(t)) {
      score[i] = 3;
    } else if (t == "tn" || t == "nt" || t == "nn" || t == "tt" || i + 1 == tokens.size()) {
      score[i] = 2;
    } else if (t.empty()) {
      score[i] = 0;
    }
  }
  std::vector<bool> kept(tokens.size(), true);
  auto render = [&] {
    std::string out;
    bool dropped = false;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (!kept[i]) {
        dropped = true;
        continue;
      }
      if (!out.empty()) out += dropped ? std::string(kEllipsis) : "_";
      out += tokens[i];
      dropped = false;
    }
    if (dropped) out += kEllipsis;
    return out;
  };
  for (int level = 0; level <= 4; ++level) {
    for (size_t i = tokens.size(); i-- > 0;) {  // from the right: the tail matters least
      if (score[i] != level) continue;
      kept[i] = false;
      std::string out = render();
      if (DisplayWidth(out) <= max_chars) return out;
    }
  }
  return "";
}

// The top-level template arguments of `s` ("k<4, F<int>, G>" -> {"4", "F<int>", "G"}), and
// where its argument list opens; npos when it has none or is unbalanced.
size_t SplitTemplateArguments(std::string_view s, std::vector<std::string_view>& args) {
  const size_t open = s.find('<');
  if (open == std::string_view::npos || s.back() != '>') return std::string_view::npos;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if ((depth == 1 && c == ',') || (depth == 0 && i + 1 == s.size())) {
      args.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
    if (depth == 0 && i + 1 < s.size()) return std::string_view::npos;  // "a<b>::c<d>"
  }
  return depth == 0 ? open : std::string_view::npos;
}

// What names a template argument: "at::native::GeluCUDAKernelImpl(at::Tensor&)::{lambda()#2}"
// -> "GeluCUDAKernelImpl" (the function a lambda is local to), "std::array<char*, 2ul>" ->
// "array<char*, 2ul>".
std::string ArgumentCore(std::string_view arg) {
  int depth = 0;
  for (size_t i = 0; i < arg.size(); ++i) {
    if (arg[i] == '<') ++depth;
    if (arg[i] == '>' && depth > 0) --depth;
    if (arg[i] == '(' && depth == 0 && i > 0) {
      arg = arg.substr(0, i);
      break;
    }
  }
  return std::string(LastComponent(arg));
}

std::string JoinTemplate(std::string_view base, const std::vector<std::string>& args, bool more) {
  std::string out(base);
  out += '<';
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
  if (more) out += args.empty() ? std::string(kEllipsis) : ", " + std::string(kEllipsis);
  return out + '>';
}

// A template instance cut to `max_chars` keeping what tells its instances apart: each argument
// reduced to its core, then the last arguments dropped ("…"), then the kernel's own name cut.
// Empty when that does not make it fit.
bool IsLiteral(const std::string& arg) {
  return arg == "true" || arg == "false" || (!arg.empty() && (IsDigit(arg[0]) || arg[0] == '-'));
}

// `base<args>` with arguments dropped until it fits: numbers and booleans ("4", "2ul", "false")
// first, as they say least, then the last arguments; at least one stays. Empty when it does not
// fit; `*kept` is what is left.
std::string DropArguments(std::string_view base, const std::vector<std::string>& args,
                          size_t max_chars, std::vector<std::string>* kept) {
  *kept = args;
  std::string out = JoinTemplate(base, *kept, false);
  if (DisplayWidth(out) <= max_chars) return out;
  for (size_t i = kept->size(); i-- > 0 && kept->size() > 1;) {
    if (!IsLiteral((*kept)[i])) continue;
    kept->erase(kept->begin() + static_cast<std::ptrdiff_t>(i));
    out = JoinTemplate(base, *kept, true);
    if (DisplayWidth(out) <= max_chars) return out;
  }
  while (kept->size() > 1) {
    kept->pop_back();
    out = JoinTemplate(base, *kept, true);
    if (DisplayWidth(out) <= max_chars) return out;
  }
  return "";
}

// A template instance cut to `max_chars` keeping what tells its instances apart: each argument
// reduced to its core, then what is nested in the arguments collapsed, arguments dropped, and
// finally the kernel's own name cut. Empty when that does not make it fit.
std::string ShortenTemplate(std::string_view s, size_t max_chars) {
  std::vector<std::string_view> raw;
  const size_t open = SplitTemplateArguments(s, raw);
  if (open == std::string_view::npos) return "";
  if (raw.size() > kMaxParts) return "";  // not a kernel's name; quadratic below
  const std::string_view base = s.substr(0, open);
  std::vector<std::string> args;
  for (std::string_view a : raw) args.push_back(ArgumentCore(a));
  std::string out = JoinTemplate(base, args, false);
  if (DisplayWidth(out) <= max_chars) return out;
  // One identifier argument is the kernel's real name (cutlass::Kernel2<cutlass_80_simt_...>).
  if (args.size() == 1 && IsIdentifier(args[0])) {
    const size_t frame = DisplayWidth(base) + 2;
    if (max_chars <= frame) return "";
    std::string elided = ElideTokens(args[0], max_chars - frame);
    return elided.empty() ? "" : JoinTemplate(base, {elided}, false);
  }
  std::vector<std::string> kept;
  for (int pass = 0; pass < 3; ++pass) {
    // Pass 1: "F<int, G<float>>" -> "F<int, G<…>>"; pass 2: "F<…>".
    if (pass == 1) {
      for (std::string& a : args) a = CollapseNestedTemplateArguments(a);
    } else if (pass == 2) {
      for (std::string& a : args) a = CollapseTemplateArguments(a);
    }
    out = DropArguments(base, args, max_chars, &kept);
    if (!out.empty()) return out;
  }
  // The arguments left stay; the kernel's name gives way, down to 8 code points of it.
  const std::string tail = JoinTemplate("", kept, kept.size() < args.size());
  const size_t tail_chars = DisplayWidth(tail);
  if (max_chars < tail_chars + 8) return "";
  const size_t room = max_chars - tail_chars;
  std::string short_base = IsIdentifier(base) ? ElideTokens(base, room) : "";
  if (short_base.empty()) {
    const size_t head = (room - 1) * 2 / 3;
    short_base = ElideMiddle(base, head, room - 1 - head);
  }
  return short_base + tail;
}

}  // namespace

std::string ShortKernelName(std::string_view name, size_t max_chars) {
  constexpr size_t kLookedAt = size_t{64} << 10;
  const std::string capped = name.size() > kLookedAt ? CappedName(name, kLookedAt) : std::string();
  std::string_view s = Trim(capped.empty() ? name : std::string_view(capped));
  if (s.starts_with("void ")) s.remove_prefix(5);
  if (size_t params = ParameterListStart(s); params != std::string_view::npos) {
    s = s.substr(0, params);
  }
  std::string shorter(Trim(s));
  if (DisplayWidth(shorter) <= max_chars) return shorter;
  // Namespaces say least: "at::native::vectorized_elementwise_kernel<...>" -> "vectorized_...".
  shorter = std::string(LastComponent(shorter));
  if (DisplayWidth(shorter) <= max_chars) return shorter;
  std::string fitted =
      IsIdentifier(shorter) ? ElideTokens(shorter, max_chars) : ShortenTemplate(shorter, max_chars);
  if (!fitted.empty()) return fitted;
  // Nothing that tells instances apart fits: their arguments go ("k<…>"), then the middle.
  if (DisplayWidth(shorter) > max_chars) shorter = CollapseTemplateArguments(shorter);
  size_t n = DisplayWidth(shorter);
  if (n <= max_chars) return shorter;
  if (max_chars < 3) return shorter.substr(0, OffsetOfCodePoint(shorter, max_chars));
  // Keep more of the head (the kernel's name) than of the tail (its last template argument).
  const size_t head = (max_chars - 1) * 2 / 3;
  return ElideMiddle(shorter, head, max_chars - 1 - head);
}

std::string FitKernelName(std::string_view name, size_t max_chars) {
  if (max_chars == 0 || DisplayWidth(name) <= max_chars) return std::string(name);
  return ShortKernelName(name, max_chars);
}

}  // namespace nodescope::analysis
