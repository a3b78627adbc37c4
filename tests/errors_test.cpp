// Error paths: each throws its typed exception with the values in the message, and a failed
// call leaves every existing array as it was (checked after each error against arrays made
// before it: evaluated, lazy, views).
#include "test_common.hpp"

#include <cstring>

namespace porta_test {
namespace {

class Errors : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    evaluated_ = random_array({64, 33}, DType::float32, -5, 5, &values_);
    lazy_ = evaluated_ * 2.0f + 1.0f;
    view_ = evaluated_.transpose().slice({{1, 30, 3}});
    ints_ = random_array({1000}, DType::int32, -1000, 1000, &int_values_);
  }

  // Every array made before the error still holds its values.
  void expect_intact(const std::string& after) {
    const Tolerance ex{0, 0};
    EXPECT_TRUE(array_matches(evaluated_, DType::float32, {64, 33}, values_, ex)) << "evaluated array after " << after;
    std::vector<double> lazy(values_.size());
    for (std::size_t i = 0; i < lazy.size(); ++i) lazy[i] = values_[i] * 2 + 1;
    EXPECT_TRUE(array_matches(lazy_, DType::float32, {64, 33}, lazy, {1e-6, 0})) << "lazy array after " << after;
    std::vector<double> view;
    for (int c = 1; c < 30; c += 3)
      for (int r = 0; r < 64; ++r) view.push_back(values_[static_cast<std::size_t>(r * 33 + c)]);
    EXPECT_TRUE(array_matches(view_, DType::float32, {10, 64}, view, ex)) << "view after " << after;
    EXPECT_TRUE(array_matches(ints_, DType::int32, {1000}, int_values_, ex)) << "int32 array after " << after;
  }

  Array evaluated_, lazy_, view_, ints_;
  std::vector<double> values_, int_values_;
};

TEST_P(Errors, ShapeMismatchNamesBothShapes) {
  Array b = porta::ones({5, 7}, DType::float32, dev());
  std::string msg = thrown_message<porta::ShapeError>([&] { (void)(evaluated_ + b); });
  EXPECT_NE(msg.find("(64, 33)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(5, 7)"), std::string::npos) << msg;
  expect_intact("a + b of mismatched shapes");
  msg = thrown_message<porta::ShapeError>([&] { (void)porta::matmul(evaluated_, b); });
  EXPECT_NE(msg.find("(64, 33)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(5, 7)"), std::string::npos) << msg;
  expect_intact("matmul of mismatched shapes");
  EXPECT_THROW((void)evaluated_.reshape({7, 7}), porta::ShapeError);
  EXPECT_THROW((void)porta::concatenate({evaluated_, b}, 0), porta::ShapeError);
  EXPECT_THROW((void)porta::from_host(std::vector<float>(5), {2, 3}, dev()), porta::ShapeError);
  expect_intact("reshape/concatenate/from_host of the wrong size");
}

TEST_P(Errors, BadAxesAreInvalidArguments) {
  for (int axis : {2, -3, 100}) {
    std::string msg = thrown_message<porta::InvalidArgument>([&] { (void)porta::sum(evaluated_, axis); });
    EXPECT_NE(msg.find(std::to_string(axis)), std::string::npos) << msg;
    EXPECT_THROW((void)porta::argmax(evaluated_, axis), porta::InvalidArgument);
    EXPECT_THROW((void)porta::mean(evaluated_, axis, true), porta::InvalidArgument);
    EXPECT_THROW((void)porta::concatenate({evaluated_, evaluated_}, axis), porta::InvalidArgument);
  }
  EXPECT_THROW((void)porta::sum(porta::zeros({}, DType::float32, dev()), 0), porta::InvalidArgument) << "axis of a 0-d array";
  EXPECT_THROW((void)evaluated_.transpose({0, 2}), porta::InvalidArgument);
  EXPECT_THROW((void)evaluated_.expand_dims(4), porta::InvalidArgument);
  EXPECT_THROW((void)evaluated_.dim(2), porta::InvalidArgument);
  EXPECT_THROW((void)evaluated_[64], porta::InvalidArgument);
  // stack builds on expand_dims; its message must name stack and the axis it was given.
  for (int axis : {5, 3, -4}) {
    std::string msg = thrown_message<porta::InvalidArgument>([&] { (void)porta::stack({evaluated_, evaluated_}, axis); });
    EXPECT_NE(msg.find("stack: axis " + std::to_string(axis)), std::string::npos) << msg;
    EXPECT_EQ(msg.find("expand_dims"), std::string::npos) << msg;
  }
  EXPECT_EQ(porta::stack({evaluated_, evaluated_}, -3).dim(0), 2) << "axis -3 of a 2-D stack is the first";
  expect_intact("bad axes");
}

TEST_P(Errors, DTypeErrors) {
  // A dtype the device lacks.
  bool any_missing = false;
  for (DType t : kAllDTypes) {
    if (dev().supports(t)) continue;
    any_missing = true;
    std::string msg = thrown_message<porta::DTypeError>([&] { (void)porta::zeros({3}, t, dev()); });
    EXPECT_NE(msg.find(std::string(porta::name(t))), std::string::npos) << msg;
    EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
    EXPECT_THROW((void)evaluated_.astype(t), porta::DTypeError);
    std::vector<std::uint8_t> raw(3 * porta::itemsize(t));
    EXPECT_THROW((void)porta::from_host(raw.data(), t, {3}, dev()), porta::DTypeError);
  }
  if (!any_missing) std::cout << "[   note   ] " << dev().spec() << " has every dtype; no missing-dtype error to check\n";
  // to_vector with the wrong T; to_host of the wrong size.
  std::string msg = thrown_message<porta::DTypeError>([&] { (void)ints_.to_vector<float>(); });
  EXPECT_NE(msg.find("int32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  EXPECT_THROW((void)evaluated_.to_vector<double>(), porta::DTypeError);
  EXPECT_THROW((void)evaluated_.item<float>(), porta::InvalidArgument) << "item() of 2112 elements";
  std::vector<std::int32_t> small(10);
  EXPECT_THROW(ints_.to_host(std::span<std::int32_t>(small)), porta::InvalidArgument);
  // Ops that do not take a dtype.
  EXPECT_THROW((void)porta::bitwise_and(evaluated_, evaluated_), porta::DTypeError);
  EXPECT_THROW((void)porta::bitwise_not(evaluated_), porta::DTypeError);
  Array flags = ints_ > 0;
  EXPECT_THROW((void)(flags - flags), porta::DTypeError) << "bool - bool (NumPy raises too)";
  EXPECT_THROW((void)-flags, porta::DTypeError);
  msg = thrown_message<porta::DTypeError>([] { (void)porta::parse_dtype("float128"); });
  EXPECT_NE(msg.find("float128"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bfloat16"), std::string::npos) << "the message lists the valid names: " << msg;
  EXPECT_EQ(porta::parse_dtype("f32"), DType::float32);
  EXPECT_EQ(porta::parse_dtype("bool"), DType::boolean);
  EXPECT_EQ(porta::parse_dtype("bf16"), DType::bfloat16);
  // A value outside the enumeration prints as itself, so that a message says which.
  EXPECT_EQ(porta::name(static_cast<DType>(42)), "DType(42)");
  EXPECT_EQ(porta::name(static_cast<DType>(15)), "DType(15)");
  EXPECT_EQ(porta::name(DType::bfloat16), "bfloat16");
  expect_intact("dtype errors");
}

TEST_P(Errors, OutOfMemoryNamesTheBytesAndKeepsArrays) {
  for (std::int64_t elements : {std::int64_t{1} << 50, static_cast<std::int64_t>(dev().memory_bytes())}) {
    try {
      Array huge = porta::empty({elements}, DType::float32, dev());
      ADD_FAILURE() << "empty() of " << elements * 4 << " bytes on a device of " << dev().memory_bytes() << " bytes succeeded";
    } catch (const porta::OutOfMemory& e) {
      std::string msg = e.what();
      EXPECT_GE(e.requested_bytes(), static_cast<std::uint64_t>(elements) * 4);
      EXPECT_NE(msg.find(std::to_string(e.requested_bytes())), std::string::npos) << "the message names the bytes: " << msg;
      EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
      EXPECT_GT(e.available_bytes(), 0u);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "empty() of " << elements * 4 << " bytes threw something other than OutOfMemory: " << e.what();
    }
    expect_intact("out of memory");
  }
  // A lazy expression whose result does not fit fails when it is evaluated, and changes nothing.
  Array big = porta::zeros({std::int64_t{1} << 50}, DType::float32, dev());
  EXPECT_THROW((void)(big + 1.0f).eval(), porta::OutOfMemory);
  // The caching allocator freed its cache and still works.
  Array after = porta::ones({100000}, DType::float32, dev()) * 3.0f;
  EXPECT_TRUE(array_matches(after, DType::float32, {100000}, std::vector<double>(100000, 3), {0, 0}));
  expect_intact("out of memory in an expression");
}

// Sizes whose byte count overflows are errors, never arrays with a wrapped size.
TEST_P(Errors, SizesBeyondSixtyFourBitsAreErrors) {
  EXPECT_THROW((void)porta::empty({std::int64_t{1} << 40, std::int64_t{1} << 40}, DType::float32, dev()), porta::ShapeError);
  EXPECT_THROW((void)porta::empty({-1}, DType::float32, dev()), porta::ShapeError);
  // 2^62 float64 elements are 2^65 bytes.
  EXPECT_THROW((void)porta::empty({std::int64_t{1} << 62}, DType::float64, dev()), porta::Error);
  EXPECT_THROW((void)porta::empty({std::int64_t{1} << 61, 4}, DType::int32, dev()), porta::Error);
  expect_intact("absurd sizes");
}

TEST_P(Errors, EmptyArraysAndDevicesAreInvalidArguments) {
  Array none;
  EXPECT_FALSE(none.valid());
  EXPECT_THROW((void)none.shape(), porta::InvalidArgument);
  EXPECT_THROW((void)none.size(), porta::InvalidArgument);
  EXPECT_THROW((void)none.dtype(), porta::InvalidArgument);
  EXPECT_THROW((void)none.device(), porta::InvalidArgument);
  EXPECT_THROW((void)none.eval(), porta::InvalidArgument);
  EXPECT_THROW((void)none.to_vector<float>(), porta::InvalidArgument);
  EXPECT_THROW((void)(none + 1), porta::InvalidArgument);
  EXPECT_THROW((void)(evaluated_ * none), porta::InvalidArgument);
  EXPECT_THROW((void)porta::exp(none), porta::InvalidArgument);
  EXPECT_THROW((void)porta::sum(none), porta::InvalidArgument);
  EXPECT_THROW((void)porta::matmul(none, evaluated_), porta::InvalidArgument);
  EXPECT_THROW((void)none.reshape({1}), porta::InvalidArgument);
  EXPECT_THROW((void)none.astype(DType::int32), porta::InvalidArgument);
  EXPECT_THROW((void)none.copy(), porta::InvalidArgument);
  EXPECT_THROW((void)none.to(dev()), porta::InvalidArgument);
  EXPECT_THROW((void)porta::where(none, evaluated_, evaluated_), porta::InvalidArgument);
  EXPECT_THROW((void)porta::concatenate({evaluated_, none}), porta::InvalidArgument);
  porta::Device nodev;
  EXPECT_FALSE(nodev.valid());
  EXPECT_THROW((void)nodev.spec(), porta::InvalidArgument);
  EXPECT_THROW((void)evaluated_.to(nodev), porta::InvalidArgument);
  EXPECT_THROW((void)porta::from_host(values_.data(), DType::float64, {3}, nodev), porta::InvalidArgument);
  EXPECT_THROW(porta::DeviceScope{nodev}, porta::InvalidArgument);
  expect_intact("empty arrays and devices");
}

TEST_P(Errors, OtherInvalidArguments) {
  EXPECT_THROW((void)porta::full({3}, 0.5, DType::int32, dev()), porta::InvalidArgument);
  EXPECT_THROW((void)(ints_ + (std::int64_t{1} << 33)), porta::InvalidArgument) << "a number int32 cannot hold";
  EXPECT_THROW((void)porta::linspace(0, 1, -1, DType::float32, dev()), porta::InvalidArgument);
  EXPECT_THROW((void)porta::eye(-1, DType::float32, dev()), porta::InvalidArgument);
  EXPECT_THROW((void)porta::arange(0.0, 1.0, std::nan(""), DType::float32, dev()), porta::InvalidArgument);
  // Operands on different devices.
  for (const auto& other : porta::devices()) {
    if (other == dev() || !other.supports(DType::float32)) continue;
    Array elsewhere = porta::ones({64, 33}, DType::float32, other);
    std::string msg = thrown_message<porta::InvalidArgument>([&] { (void)(evaluated_ + elsewhere); });
    EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
    EXPECT_NE(msg.find(other.spec()), std::string::npos) << msg;
    EXPECT_THROW((void)porta::matmul(evaluated_, elsewhere.transpose()), porta::InvalidArgument);
    EXPECT_THROW((void)porta::concatenate({evaluated_, elsewhere}), porta::InvalidArgument);
    EXPECT_TRUE(array_matches(evaluated_ + elsewhere.to(dev()), DType::float32, {64, 33}, [&] {
      auto r = values_;
      for (auto& x : r) x += 1;
      return r;
    }(), {1e-6, 0})) << "after .to() they mix";
  }
  expect_intact("invalid arguments");
}

// A DType cast from an integer that names no dtype is a DTypeError naming the value at every
// function that takes one, before any memory is allocated or any kernel generated.
TEST_P(Errors, OutOfRangeDTypeIsADTypeErrorNamingTheValue) {
  for (int code : {15, 42, 255}) {
    const auto bad = static_cast<DType>(code);
    const std::string value = "DType(" + std::to_string(code) + ")";
    EXPECT_FALSE(porta::is_valid(bad));
    EXPECT_FALSE(dev().supports(bad));
    const std::vector<std::pair<const char*, std::function<void()>>> calls = {
        {"empty", [&] { (void)porta::empty({4}, bad, dev()); }},
        {"zeros", [&] { (void)porta::zeros({4}, bad, dev()); }},
        {"full", [&] { (void)porta::full({4}, 1.0, bad, dev()); }},
        {"from_host", [&] { float f[4] = {1, 2, 3, 4}; (void)porta::from_host(f, bad, {4}, dev()); }},
        {"astype", [&] { (void)evaluated_.astype(bad); }},
        {"arange", [&] { (void)porta::arange(4, bad, dev()); }},
        {"linspace", [&] { (void)porta::linspace(0, 1, 4, bad, dev()); }},
        {"eye", [&] { (void)porta::eye(3, bad, dev()); }},
        {"random::uniform", [&] { (void)porta::random::uniform({4}, 0, 1, bad, dev()); }},
        {"to_host", [&] { std::vector<float> out(64 * 33); evaluated_.to_host(bad, out.data(), out.size() * 4); }},
        {"itemsize", [&] { (void)porta::itemsize(bad); }},
    };
    for (const auto& [what, call] : calls) {
      std::string msg = thrown_message<porta::DTypeError>(call);
      EXPECT_NE(msg.find(value), std::string::npos) << what << ": " << msg;
    }
  }
  expect_intact("functions given an out-of-range DType");
}

PORTA_INSTANTIATE_DEVICES(Errors);

}  // namespace
}  // namespace porta_test
