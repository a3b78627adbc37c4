// Random arrays: lazy Philox leaves scaled with one fused multiply-add, so that uniform draws
// are the same bits on every backend.
#include <porta/random.hpp>
#include <porta/error.hpp>

#include <memory>
#include <mutex>
#include <random>

#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"

namespace porta::random {

using detail::cat;
using detail::NodePtr;
using detail::Op;

namespace {

Array draw(Op op, std::uint64_t seed, std::uint64_t stream, Shape shape, double shift, double scale, DType t,
           const Device& d, const char* what) {
  detail::check_valid_dtype(t, what);
  if (!is_floating(t)) throw DTypeError(cat("random::", what, " makes floating arrays; ", name(t), " is not one"));
  (void)element_count(shape);
  detail::check_dtype(d, t);
  DType w = t == DType::float64 ? DType::float64 : DType::float32;  // float16/bfloat16 round from float32
  detail::Expr e;
  e.op = op;
  e.seed = seed;
  e.stream = stream;
  NodePtr u = std::make_shared<detail::ArrayNode>(shape, w, d, std::move(e));
  if (shift != 0.0 || scale != 1.0) {
    NodePtr sc = detail::make_scalar(scale, 0, w, shape, d);
    NodePtr sh = detail::make_scalar(shift, 0, w, shape, d);
    u = detail::make_node(Op::fma, w, u, sc, sh);
  }
  return Array(detail::cast(u, t));
}

struct Global {
  std::mutex m;
  std::shared_ptr<Generator> gen;  // replaced by seed(); draws in flight keep theirs
};

Global& global() {
  static Global g;
  return g;
}

std::shared_ptr<Generator> global_generator() {
  auto& g = global();
  std::lock_guard lock(g.m);
  if (!g.gen) {
    std::random_device rd;
    std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    g.gen = std::make_shared<Generator>(s);
  }
  return g.gen;
}

}  // namespace

Array Generator::uniform(Shape shape, double low, double high, DType t, Device d) {
  if (!(high >= low)) throw InvalidArgument(cat("uniform: high ", high, " is below low ", low));
  return draw(Op::uniform, seed_, next_stream_.fetch_add(1), std::move(shape), low, high - low, t, d, "uniform");
}

Array Generator::normal(Shape shape, double mean, double stddev, DType t, Device d) {
  if (!(stddev >= 0)) throw InvalidArgument(cat("normal: the standard deviation ", stddev, " is negative"));
  return draw(Op::normal, seed_, next_stream_.fetch_add(1), std::move(shape), mean, stddev, t, d, "normal");
}

void seed(std::uint64_t s) {
  auto& g = global();
  std::lock_guard lock(g.m);
  g.gen = std::make_shared<Generator>(s);
}

Array uniform(Shape shape, double low, double high, DType t, Device d) {
  return global_generator()->uniform(std::move(shape), low, high, t, std::move(d));
}

Array normal(Shape shape, double mean, double stddev, DType t, Device d) {
  return global_generator()->normal(std::move(shape), mean, stddev, t, std::move(d));
}

}  // namespace porta::random
