// porta::einsum: NumPy's subscripts (explicit "ij,jk->ik" or implicit "ij,jk", "..." for broadcast
// dimensions), each operand's repeated letters taken as diagonals and its own letters summed first;
// then the pair of operands whose contraction touches the fewest elements is contracted, one pair at
// a time, each as one batched matmul (shared kept letters the batch, shared summed letters the inner
// dimension), until one operand is left, whose remaining sums and order give the result.
#include <porta/error.hpp>
#include <porta/linalg.hpp>
#include <porta/manip.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace {

struct Term {
  Array a;
  std::string letters;  // one per axis
};

// Letters for "..." axes: characters that are not ASCII letters, so they never meet a user's.
char ellipsis_letter(int i) { return static_cast<char>(0x80 + i); }

std::string expand_ellipsis(const std::string& s, int ndim, int& ellipsis_dims, const std::string& subscripts) {
  const auto pos = s.find("...");
  if (pos == std::string::npos) return s;
  const int named = static_cast<int>(s.size()) - 3;
  const int dims = ndim - named;
  if (dims < 0)
    throw ShapeError(cat("einsum '", subscripts, "': '", s, "' names more axes than its operand's ", ndim));
  ellipsis_dims = std::max(ellipsis_dims, dims);
  std::string e;
  for (int i = 0; i < dims; ++i) e += ellipsis_letter(ellipsis_dims - dims + i);  // right-aligned, as broadcasting
  return s.substr(0, pos) + e + s.substr(pos + 3);
}

// Sums the axes of `t` whose letters are not in `keep`.
Term sum_out(Term t, const std::string& keep) {
  std::vector<int> axes;
  std::string rest;
  for (std::size_t i = 0; i < t.letters.size(); ++i) {
    if (keep.find(t.letters[i]) == std::string::npos) axes.push_back(static_cast<int>(i));
    else rest += t.letters[i];
  }
  if (axes.empty()) return t;
  return {sum(t.a, axes, false), rest};
}

// Takes the diagonal of every letter repeated within one operand.
Term diagonals(Term t, const std::string& subscripts) {
  for (std::size_t i = 0; i < t.letters.size(); ++i) {
    const auto j = t.letters.find(t.letters[i], i + 1);
    if (j == std::string::npos) continue;
    if (t.a.dim(static_cast<int>(i)) != t.a.dim(static_cast<int>(j)))
      throw ShapeError(cat("einsum '", subscripts, "': the repeated subscript '", t.letters[i], "' has lengths ",
                           t.a.dim(static_cast<int>(i)), " and ", t.a.dim(static_cast<int>(j))));
    const char c = t.letters[i];
    Array moved = moveaxis(t.a, {static_cast<int>(i), static_cast<int>(j)}, {-2, -1});
    std::string letters = t.letters;
    letters.erase(j, 1);
    letters.erase(i, 1);
    t = {linalg::diagonal(moved, 0), letters + c};
    i = static_cast<std::size_t>(-1);  // start again: positions moved
  }
  return t;
}

std::int64_t dim_of(const Term& t, char c) { return t.a.dim(static_cast<int>(t.letters.find(c))); }

// x with its axes in the order of `order` (a permutation of x's letters), reshaped to `groups` products.
Array arrange(const Term& t, const std::string& order, const std::vector<std::string>& groups) {
  std::vector<int> perm;
  for (char c : order) perm.push_back(static_cast<int>(t.letters.find(c)));
  Array x = t.a.transpose(perm);
  Shape s;
  for (const std::string& g : groups) {
    std::int64_t n = 1;
    for (char c : g) n *= dim_of(t, c);
    s.push_back(n);
  }
  return x.reshape(s);
}

// The contraction of a and b: letters in both and in `keep` are the batch, in both and not in
// `keep` summed, the others kept. One matmul of (batch, m, k) by (batch, k, n).
Term contract(const Term& a, const Term& b, const std::string& keep, const std::string& subscripts) {
  std::string batch, inner, a_only, b_only;
  for (char c : a.letters) {
    if (b.letters.find(c) != std::string::npos) {
      if (dim_of(a, c) != dim_of(b, c))
        throw ShapeError(cat("einsum '", subscripts, "': subscript '", c, "' has lengths ", dim_of(a, c), " and ",
                             dim_of(b, c), " in two operands"));
      (keep.find(c) != std::string::npos ? batch : inner) += c;
    } else {
      a_only += c;
    }
  }
  for (char c : b.letters)
    if (a.letters.find(c) == std::string::npos) b_only += c;
  Array x = arrange(a, batch + a_only + inner, {batch, a_only, inner});
  Array y = arrange(b, batch + inner + b_only, {batch, inner, b_only});
  Shape out;
  for (char c : batch) out.push_back(dim_of(a, c));
  for (char c : a_only) out.push_back(dim_of(a, c));
  for (char c : b_only) out.push_back(dim_of(b, c));
  return {matmul(x, y, MatmulPrecision::exact).reshape(out), batch + a_only + b_only};
}

}  // namespace

Array einsum(const std::string& subscripts_in, const std::vector<Array>& operands) {
  if (operands.empty()) throw InvalidArgument("einsum: no operands; give at least one array");
  for (const Array& a : operands) detail::node_of(a, "einsum");
  std::string subscripts;
  for (char c : subscripts_in)
    if (c != ' ') subscripts += c;
  const auto arrow = subscripts.find("->");
  const std::string inputs = subscripts.substr(0, arrow);
  std::vector<std::string> specs;
  for (std::size_t p = 0;;) {
    const auto q = inputs.find(',', p);
    specs.push_back(inputs.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  if (specs.size() != operands.size())
    throw InvalidArgument(cat("einsum '", subscripts_in, "': ", specs.size(), " subscripts for ", operands.size(), " operands"));
  int ellipsis_dims = 0;
  std::vector<Term> terms;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    for (std::size_t k = 0; k < specs[i].size(); ++k) {
      const char c = specs[i][k];
      if (!std::isalpha(static_cast<unsigned char>(c)) && !(c == '.' && specs[i].compare(k, 3, "...") == 0 && (k += 2, true)))
        throw InvalidArgument(cat("einsum '", subscripts_in, "': '", c, "' is not a subscript (letters a-z, A-Z, and '...')"));
    }
    std::string letters = expand_ellipsis(specs[i], operands[i].ndim(), ellipsis_dims, subscripts_in);
    if (static_cast<int>(letters.size()) != operands[i].ndim())
      throw ShapeError(cat("einsum '", subscripts_in, "': '", specs[i], "' names ", letters.size(),
                           " axes but operand ", i, " has shape ", to_string(operands[i].shape())));
    terms.push_back({operands[i], letters});
  }
  // Ellipsis axes broadcast: an operand with fewer of them gets leading axes of length 1.
  std::string ell;
  for (int i = 0; i < ellipsis_dims; ++i) ell += ellipsis_letter(i);
  std::string output;
  if (arrow != std::string::npos) {
    const std::string out_spec = subscripts.substr(arrow + 2);
    output = out_spec.find("...") != std::string::npos ? out_spec.substr(0, out_spec.find("...")) + ell +
                                                             out_spec.substr(out_spec.find("...") + 3)
                                                       : out_spec;
  } else {
    std::map<char, int> count;
    for (const Term& t : terms)
      for (char c : t.letters)
        if (std::isalpha(static_cast<unsigned char>(c))) ++count[c];
    output = ell;
    for (auto [c, k] : count)
      if (k == 1) output += c;
  }
  for (char c : output) {
    if (std::count(output.begin(), output.end(), c) > 1)
      throw InvalidArgument(cat("einsum '", subscripts_in, "': output subscript '", c, "' appears twice"));
    if (std::none_of(terms.begin(), terms.end(), [&](const Term& t) { return t.letters.find(c) != std::string::npos; }))
      throw InvalidArgument(cat("einsum '", subscripts_in, "': output subscript '", c, "' names no input axis"));
  }
  for (Term& t : terms) {
    // Broadcast ellipsis axes: pad to every ellipsis letter, then to the common length.
    std::string missing;
    for (char c : ell)
      if (t.letters.find(c) == std::string::npos) missing += c;
    if (!missing.empty()) {
      Shape s(missing.size(), 1);
      s.insert(s.end(), t.a.shape().begin(), t.a.shape().end());
      t = {t.a.reshape(s), missing + t.letters};
    }
  }
  if (!ell.empty()) {
    Shape common;
    for (char c : ell) {
      std::int64_t n = 1;
      for (const Term& t : terms) {
        const std::int64_t d = dim_of(t, c);
        if (d != 1 && n != 1 && d != n)
          throw ShapeError(cat("einsum '", subscripts_in, "': the '...' axes of the operands do not broadcast"));
        n = std::max(n, d);
      }
      common.push_back(n);
    }
    for (Term& t : terms) {
      Shape s = t.a.shape();
      bool change = false;
      for (std::size_t k = 0; k < ell.size(); ++k) {
        auto& d = s[t.letters.find(ell[k])];
        if (d != common[k]) d = common[k], change = true;
      }
      if (change) t.a = t.a.broadcast_to(s);
    }
  }
  // What stays needed of each term: the output's letters and any other term's.
  auto needed = [&](std::size_t self) {
    std::string keep = output;
    for (std::size_t j = 0; j < terms.size(); ++j)
      if (j != self) keep += terms[j].letters;
    return keep;
  };
  for (std::size_t i = 0; i < terms.size(); ++i) terms[i] = sum_out(diagonals(terms[i], subscripts_in), needed(i));
  while (terms.size() > 1) {
    // The pair whose contraction touches the fewest elements (the product of its letters' lengths).
    std::size_t bi = 0, bj = 1;
    double best = -1;
    for (std::size_t i = 0; i < terms.size(); ++i)
      for (std::size_t j = i + 1; j < terms.size(); ++j) {
        std::string all = terms[i].letters;
        for (char c : terms[j].letters)
          if (all.find(c) == std::string::npos) all += c;
        double cost = 1;
        for (char c : all) cost *= static_cast<double>(terms[i].letters.find(c) != std::string::npos ? dim_of(terms[i], c) : dim_of(terms[j], c));
        if (best < 0 || cost < best) best = cost, bi = i, bj = j;
      }
    std::string keep = output;
    for (std::size_t k = 0; k < terms.size(); ++k)
      if (k != bi && k != bj) keep += terms[k].letters;
    Term merged = contract(terms[bi], terms[bj], keep, subscripts_in);
    terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(bj));
    terms[bi] = merged;
  }
  Term last = sum_out(terms[0], output);
  std::vector<int> perm;
  for (char c : output) perm.push_back(static_cast<int>(last.letters.find(c)));
  return perm.empty() ? last.a : last.a.transpose(perm);  // a view where NumPy's is one too ("ij->ji")
}

}  // namespace porta
