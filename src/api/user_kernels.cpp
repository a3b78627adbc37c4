// ElementwiseKernel (one body for CUDA and OpenCL, CuPy's) and RawKernel (backend source with
// an explicit launch shape, PyCUDA's SourceModule).
#include <algorithm>
#include <porta/kernel.hpp>
#include <porta/error.hpp>

#include <cctype>
#include <cstring>
#include <map>

#include "codegen/codegen.hpp"
#include "codegen/layout.hpp"
#include "runtime/device_state.hpp"
#include "lazy/expr.hpp"
#include "runtime/kernel_args.hpp"
#include "lazy/plan_builder.hpp"
#include "plugin/registry.hpp"
#include "porta_backend/strings.hpp"
#include "api/write.hpp"

namespace porta {

using detail::cat;

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::vector<ElementwiseKernel::Param> parse_params(const std::string& text, const char* which) {
  std::vector<ElementwiseKernel::Param> out;
  if (detail::trim(text).empty()) return out;
  for (auto& part : detail::split(text, ',')) {
    auto words = detail::split(detail::trim(part), ' ');
    std::vector<std::string> w;
    for (auto& x : words)
      if (!detail::trim(x).empty()) w.push_back(detail::trim(x));
    if (w.size() != 2 || !is_identifier(w[1]))
      throw InvalidArgument(cat("ElementwiseKernel ", which, " parameter '", detail::trim(part),
                                "' is not 'dtype name' (for example 'float32 x')"));
    out.push_back({parse_dtype(w[0]), w[1]});
  }
  return out;
}

// Words of C, C++, CUDA C++ and OpenCL C that cannot name a kernel or a parameter in every dialect
// the kernel may be compiled in (CuPy's default name, 'kernel', is OpenCL C's function qualifier).
bool keyword(const std::string& name) {
  static const char* const words[] = {
      "auto", "bool", "break", "case", "catch", "char", "class", "const", "constant", "constexpr", "continue", "default",
      "delete", "do", "double", "else", "enum", "extern", "false", "float", "for", "friend", "global", "goto", "half",
      "if", "inline", "int", "kernel", "local", "long", "namespace", "new", "operator", "private", "protected", "public",
      "read_only", "read_write", "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
      "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "uchar", "uint", "ulong", "union",
      "unsigned", "ushort", "using", "virtual", "void", "volatile", "while", "write_only"};
  if (name.rfind("__", 0) == 0) return true;  // __kernel, __global, __device__, ...: the implementation's
  for (const char* w : words)
    if (name == w) return true;
  return false;
}

// Names the generated code uses around the body.
bool reserved(const std::string& name) {
  if (name == "i" || name == "e" || name == "n" || name == "r_" || name == "i_" || name.rfind("porta_", 0) == 0) return true;
  for (const char* prefix : {"in", "off", "st", "s", "u", "p", "dim"}) {
    std::size_t len = std::strlen(prefix);
    if (name.size() > len && name.compare(0, len, prefix) == 0 && std::isdigit(static_cast<unsigned char>(name[len]))) return true;
  }
  return false;
}

std::vector<std::string> compiling_devices() {
  std::vector<std::string> out;
  for (auto& d : devices())
    if (d.compiles_at_runtime()) out.push_back(d.spec());
  return out;
}

// The source language each backend with devices here declares ("" for none), by its first device.
std::map<Backend, std::string> source_languages() {
  std::map<Backend, std::string> out;
  for (auto& d : detail::Registry::get().devices()) out.emplace(d.backend(), d.impl().info().caps.source_language);
  return out;
}

// The options each backend with devices here adds to a RawKernel's, by its first device.
std::map<Backend, std::vector<std::string>> user_kernel_options() {
  std::map<Backend, std::vector<std::string>> out;
  for (auto& d : detail::Registry::get().devices()) out.emplace(d.backend(), d.impl().info().caps.user_kernel_options);
  return out;
}

}  // namespace

struct ElementwiseKernel::State {
  std::vector<Param> in, out;
  std::string body, name, preamble;
};

ElementwiseKernel::ElementwiseKernel(std::string in_params, std::string out_params, std::string body, std::string name,
                                     std::string preamble)
    : state_(std::make_shared<State>()) {
  state_->in = parse_params(in_params, "input");
  state_->out = parse_params(out_params, "output");
  if (state_->out.empty()) throw InvalidArgument("ElementwiseKernel needs at least one output parameter");
  if (!is_identifier(name)) throw InvalidArgument(cat("ElementwiseKernel name '", name, "' is not an identifier"));
  if (keyword(name))
    throw InvalidArgument(cat("ElementwiseKernel name '", name,
                              "' is a keyword of C++ or OpenCL C, which the kernel is compiled as; choose another name"));
  std::vector<std::string> seen;
  for (auto* list : {&state_->in, &state_->out})
    for (auto& p : *list) {
      if (reserved(p.name))
        throw InvalidArgument(cat("ElementwiseKernel parameter name '", p.name, "' is reserved; rename it"));
      if (keyword(p.name))
        throw InvalidArgument(cat("ElementwiseKernel parameter name '", p.name, "' is a keyword of C++ or OpenCL C; rename it"));
      if (std::find(seen.begin(), seen.end(), p.name) != seen.end())
        throw InvalidArgument(cat("ElementwiseKernel parameter '", p.name, "' appears twice"));
      seen.push_back(p.name);
    }
  state_->body = std::move(body);
  state_->name = std::move(name);
  state_->preamble = std::move(preamble);
}

ElementwiseKernel::~ElementwiseKernel() = default;
ElementwiseKernel::ElementwiseKernel(const ElementwiseKernel&) = default;
ElementwiseKernel& ElementwiseKernel::operator=(const ElementwiseKernel&) = default;
const std::vector<ElementwiseKernel::Param>& ElementwiseKernel::inputs() const { return state_->in; }
const std::vector<ElementwiseKernel::Param>& ElementwiseKernel::outputs() const { return state_->out; }

Array ElementwiseKernel::operator()(const std::vector<Operand>& args) const {
  if (state_->out.size() != 1)
    throw InvalidArgument(cat("ElementwiseKernel ", state_->name, " has ", state_->out.size(), " outputs; use call()"));
  return call(args).front();
}

std::vector<Array> ElementwiseKernel::call(const std::vector<Operand>& args) const {
  const State& st = *state_;
  if (args.size() != st.in.size())
    throw InvalidArgument(cat("ElementwiseKernel ", st.name, " takes ", st.in.size(), " inputs; ", args.size(), " given"));
  // Device and broadcast shape of the array arguments.
  Device device;
  Shape shape;
  bool any_array = false;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k].kind() != Operand::Kind::array) continue;
    auto n = detail::node_of(args[k].array(), "ElementwiseKernel argument");
    if (!any_array) {
      device = n->device();
      shape = n->shape();
      any_array = true;
    } else {
      if (n->device() != device)
        throw InvalidArgument(cat("ElementwiseKernel ", st.name, ": argument ", k, " is on ", n->device().spec(), ", others on ",
                                  device.spec()));
      shape = detail::broadcast_shapes(shape, n->shape());
    }
  }
  if (!any_array) device = current_device();
  if (!device.compiles_at_runtime())
    throw BackendUnavailable(cat("ElementwiseKernel needs a device that compiles kernels at run time; ", device.spec(),
                                 " does not. Devices that do: ", detail::join(compiling_devices(), ", ")));
  for (auto* list : {&st.in, &st.out})
    for (auto& p : *list) detail::check_dtype(device, p.dtype);

  // Inputs as a plan: arrays become inputs (cast, broadcast, evaluated), numbers scalars.
  detail::ElementwisePlan plan;
  std::vector<std::shared_ptr<detail::Buffer>> buffers;
  std::vector<std::string> names_of_reads;  // per parameter: "in" or "scalar"
  std::vector<std::int64_t> which;          // index into plan.inputs or plan.scalars
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Param& p = st.in[k];
    if (args[k].kind() == Operand::Kind::array) {
      auto n = detail::broadcast_node(detail::cast(args[k].array().node(), p.dtype), shape);
      const auto& v = detail::evaluate(n);
      plan.inputs.push_back({p.dtype, v.buffer->handle(), v.offset, v.strides});
      buffers.push_back(v.buffer);
      names_of_reads.push_back("in");
      which.push_back(static_cast<std::int64_t>(plan.inputs.size() - 1));
    } else {
      detail::ScalarValue s;
      s.dtype = p.dtype;
      bool fl = args[k].kind() == Operand::Kind::floating || args[k].kind() == Operand::Kind::complex;
      s.f = fl ? args[k].floating() : static_cast<double>(args[k].integer());
      s.i = fl ? static_cast<std::int64_t>(args[k].floating()) : args[k].integer();
      if (args[k].kind() == Operand::Kind::complex) s.imag = args[k].imag();  // a complex parameter's imaginary part
      plan.scalars.push_back(s);
      names_of_reads.push_back("scalar");
      which.push_back(static_cast<std::int64_t>(plan.scalars.size() - 1));
    }
  }
  std::vector<std::vector<std::int64_t>*> strides;
  for (auto& in : plan.inputs) strides.push_back(&in.strides);
  plan.shape = detail::merge_dimensions(shape, strides);
  std::vector<detail::NodePtr> outs;
  for (auto& p : st.out) outs.push_back(detail::make_buffer_node(shape, p.dtype, device));
  std::int64_t n = element_count(shape);
  const auto& q = detail::thread_queue_shared(device);
  if (n > 0) {
    const auto& info = device.impl().info();
    detail::DialectText d{info.dialect};
    detail::InputLayout layout = detail::analyse_inputs(plan);
    if (n > 0x7ffffff0LL) layout.wide = true;
    std::string key = detail::key_cat("uk|", st.name, "|", layout.wide ? 'w' : 'n', plan.shape.size(), "|", layout.key(), "|");
    for (auto& a : names_of_reads) key += a[0];
    for (auto* list : {&st.in, &st.out})
      for (auto& p : *list) detail::append_all(key, static_cast<int>(p.dtype), p.name, ",");
    detail::append_all(key, "|", st.preamble, "|", st.body);
    auto make = [&] {
      const std::string idx = d.index_type(layout.wide);
      // Complex parameters are base/complex.h's structs (porta_c64, porta_c128), computed with its
      // functions (porta_mul_c64(x, y) ...): neither dialect has operators on them.
      bool complex = false;
      for (auto* list : {&st.in, &st.out})
        for (auto& p : *list) complex = complex || is_complex(p.dtype);
      std::string src = d.prelude(device.supports(DType::float64), false, complex) + st.preamble + "\n";
      detail::InputCode ic = detail::input_code(d, plan, layout, "e", "    ");
      std::vector<std::string> params = ic.params;
      for (std::size_t j = 0; j < st.out.size(); ++j) params.push_back(cat(d.global_out_ptr(st.out[j].dtype), " porta_out", j));
      params.push_back(cat("const ", idx, " n"));
      if (layout.any_strided())
        for (auto& p : detail::dim_params(d, plan, layout.wide)) params.push_back(p);
      src += cat(d.kernel_prefix(), st.name, "(", detail::join(params, ", "), ") {\n", ic.uniform_loads, "  for (", idx, " e = (", idx,
                 ")", d.global_id(), "; e < n; e += (", idx, ")", d.global_size(), ") {\n", ic.position_code);
      for (std::size_t k = 0; k < st.in.size(); ++k) {
        std::string val = names_of_reads[k] == "in" ? ic.reads[static_cast<std::size_t>(which[k])]
                                                     : (st.in[k].dtype == DType::boolean ? cat("(s", which[k], " != 0)") : cat("s", which[k]));
        if (names_of_reads[k] != "in" && is_complex(st.in[k].dtype))  // a complex scalar: two parameters (layout.cpp)
          val = cat("porta_c_", st.in[k].dtype == DType::complex64 ? "c64" : "c128", "(s", which[k], ", si", which[k], ")");
        src += cat("    const ", d.compute_type(st.in[k].dtype), " ", st.in[k].name, " = ", val, ";\n");
      }
      for (auto& p : st.out)
        src += cat("    ", d.compute_type(p.dtype), " ", p.name, " = ",
                   is_complex(p.dtype) ? cat("porta_c_", p.dtype == DType::complex64 ? "c64" : "c128", "(0, 0)") : "0", ";\n");
      src += cat("    { const ", d.compute_type(DType::int64), " i = e; (void)i;\n", st.body, ";\n    }\n");
      for (std::size_t j = 0; j < st.out.size(); ++j) src += cat("    ", d.store(st.out[j].dtype, cat("porta_out", j), "e", st.out[j].name), "\n");
      src += "  }\n}\n";
      return detail::KernelSource{src, st.name, {}, true};
    };
    auto kernel = device.impl().state().kernels().get(key, make);
    detail::KernelArgs kargs(layout.wide);
    detail::push_input_args(kargs, plan, layout);
    for (auto& o : outs) kargs.memory(o->view().buffer->handle());
    kargs.index(n);
    if (layout.any_strided())
      for (auto s : plan.shape) kargs.index(s);
    for (auto& b : buffers) b->before_read(q);
    detail::LaunchDims dims;
    std::size_t group = info.launch.group_size ? info.launch.group_size : 256;
    std::size_t groups = (static_cast<std::size_t>(n) + group - 1) / group;
    if (info.launch.grid_stride) groups = std::min<std::size_t>(groups, std::max<std::size_t>(info.launch.max_groups, 1));
    dims.global[0] = groups * group;
    dims.local[0] = info.launch.group_size;
    device.impl().launch(*q, *kernel, dims, kargs.args());
  }
  std::vector<Array> result;
  for (auto& o : outs) {
    o->view().buffer->after_write(q);
    result.emplace_back(o);
  }
  return result;
}

RawArg::RawArg(DType t, const void* p, std::size_t n, bool is_unsigned) : unsigned_(is_unsigned), dtype_(t), size_(n) {
  std::memcpy(bytes_.data(), p, n);
}

RawArg RawArg::local(std::size_t bytes) {
  if (bytes == 0) throw InvalidArgument("RawArg::local(0): local memory needs at least one byte");
  RawArg a;
  a.local_ = true;
  a.size_ = bytes;
  return a;
}

struct RawKernel::State {
  Backend backend;
  std::string source, name;
  std::vector<std::string> options;
  std::string key;
};

RawKernel::RawKernel(Backend backend, std::string source, std::string name, std::vector<std::string> options)
    : state_(std::make_shared<State>()) {
  // A loaded backend that declares no source language compiles none (Kokkos); one not loaded is
  // refused at compile(), when a device of it is asked for.
  if (auto languages = source_languages(); languages.count(backend) && languages[backend].empty()) {
    std::vector<std::string> others;
    for (auto& [b, language] : languages)
      if (!language.empty()) others.push_back(cat(porta::name(b), " (", language, ")"));
    throw InvalidArgument(cat("RawKernel: the ", porta::name(backend), " backend compiles no source at run time (it declares no ",
                              "source language); RawKernel takes the source of ",
                              others.empty() ? std::string("a backend that does, and none here does") : detail::join(others, ", ")));
  }
  if (name.empty()) throw InvalidArgument("RawKernel needs the kernel's name");
  if (detail::trim(source).empty())
    throw InvalidArgument(cat("RawKernel ", name, ": the source is empty; give the ", porta::name(backend),
                              " source that defines the kernel '", name, "'"));
  // Options the backend adds to a user's (OpenCL's -cl-kernel-arg-info, so that launch can check
  // the arguments against the parameters' types): the key and the source compiled carry them.
  for (auto& [b, added] : user_kernel_options())
    if (b == backend)
      for (auto& o : added)
        if (std::find(options.begin(), options.end(), o) == options.end()) options.push_back(o);
  state_->backend = backend;
  state_->source = std::move(source);
  state_->name = std::move(name);
  state_->options = std::move(options);
  state_->key = cat("raw|", state_->name, "|", detail::join(state_->options, " "), "|", state_->source);
}

RawKernel::~RawKernel() = default;
RawKernel::RawKernel(const RawKernel&) = default;
RawKernel& RawKernel::operator=(const RawKernel&) = default;

namespace {

// The kernel on `d`; its source is copied into a KernelSource only when it must be compiled.
std::shared_ptr<detail::Kernel> raw_compile(const Device& d, Backend backend, const std::string& key, const std::string& source,
                                             const std::string& entry, const std::vector<std::string>& options) {
  if (!d.compiles_at_runtime())
    throw BackendUnavailable(cat("RawKernel needs a device that compiles kernels at run time; ", d.spec(), " does not. Devices that do: ",
                                 detail::join(compiling_devices(), ", ")));
  if (d.backend() != backend)
    throw InvalidArgument(cat("this RawKernel holds ", name(backend), " source but ", d.spec(), " runs ", name(d.backend()),
                              "; make a RawKernel with that backend's source, or launch on a ", name(backend), " device"));
  return d.impl().state().kernels().get(key, [&] { return detail::KernelSource{source, entry, options, true}; });
}

}  // namespace

namespace {

std::string describe_arg(const RawArg& a) {
  if (a.is_local()) return cat("local memory of ", a.size(), " bytes (RawArg::local)");
  if (a.is_array()) return cat("an Array (", porta::name(a.array().dtype()), ")");
  return cat(a.number_unsigned() ? "an unsigned " : "a ", a.number_dtype() == DType::float32 || a.number_dtype() == DType::float64
                                                          ? porta::name(a.number_dtype())
                                                          : (a.size() == 4 ? std::string_view("32-bit integer") : std::string_view("64-bit integer")),
             " number (", a.size(), " bytes)");
}

bool is_float_type(const std::string& t) { return t == "float" || t == "double" || t == "half"; }

std::string describe_param(const detail::KernelParam& p) {
  if (!p.type.empty()) return cat("'", p.type, "'");
  if (p.size) return cat("a ", p.size, "-byte parameter");
  return "a parameter of unknown type";
}

// Arguments against the parameters the backend lists, before the driver sees them (a driver
// given a number where it expects a buffer may crash: PoCL did).
void check_args(const std::string& kernel, const Device& d, const detail::Kernel& k, const std::vector<RawArg>& args) {
  const std::vector<detail::KernelParam>* params = k.params();
  if (!params) return;
  using Kind = detail::KernelParam::Kind;
  // Where local memory is given per launch (CUDA), RawArg::local is no parameter: it joins the
  // group's dynamic local memory.
  const bool per_launch = d.impl().info().caps.local_memory_per_launch;
  std::vector<const RawArg*> passed;
  for (auto& a : args)
    if (!(per_launch && a.is_local())) passed.push_back(&a);
  if (passed.size() != params->size()) {
    std::vector<std::string> types;
    for (auto& p : *params) types.push_back(p.type.empty() ? cat(p.size, " bytes") : p.type);
    throw InvalidArgument(cat("RawKernel ", kernel, " on ", d.spec(), ": the kernel takes ", params->size(), " parameters (",
                              detail::join(types, ", "), ") but ", passed.size(), " arguments were given",
                              per_launch ? cat(" (RawArg::local arguments do not count on ", name(d.backend()), ")") : std::string()));
  }
  for (std::size_t j = 0; j < passed.size(); ++j) {
    const RawArg& a = *passed[j];
    const detail::KernelParam& p = (*params)[j];
    std::string what;
    if (p.kind == Kind::memory && !a.is_array()) what = "pass an Array";
    else if (p.kind == Kind::local_memory && !a.is_local()) what = "pass RawArg::local(bytes)";
    else if (p.kind == Kind::scalar && (a.is_array() || a.is_local())) what = "pass a number of that type";
    else if (p.kind == Kind::scalar && p.size && a.size() != p.size) what = cat("pass a ", p.size, "-byte number");
    // The float/integer test only where the type is one OpenCL C names (p.size known): a typedef
    // such as `real` may be either.
    else if (p.kind == Kind::scalar && p.size && is_float_type(p.type) != porta::is_floating(a.number_dtype()))
      what = is_float_type(p.type) ? "pass a float or double" : "pass an integer";
    else if (p.kind == Kind::unknown && p.size && !a.is_local() && (a.is_array() ? 8 : a.size()) != p.size)
      what = a.is_array() ? cat("an Array is passed as an 8-byte pointer; pass a ", p.size, "-byte number")
                          : cat("pass a ", p.size, "-byte ", p.size == 8 ? "number or an Array" : "number");
    if (!what.empty())
      throw InvalidArgument(cat("RawKernel ", kernel, " on ", d.spec(), ": argument ", j, " is ", describe_arg(a), " but parameter ", j,
                                " is ", describe_param(p), "; ", what));
  }
}

}  // namespace

void RawKernel::compile(const Device& d) const {
  raw_compile(d, state_->backend, state_->key, state_->source, state_->name, state_->options);
}

void RawKernel::launch(Dim3 grid, Dim3 block, const std::vector<RawArg>& args, std::size_t shared_bytes, Device d) const {
  const State& st = *state_;
  if (!d.valid()) {
    for (auto& a : args)
      if (a.is_array()) {
        d = a.array().device();
        break;
      }
    if (!d.valid()) d = current_device();
  }
  const detail::Capabilities& caps = d.impl().info().caps;
  bool runtime_block = block.x == 0 && block.y == 0 && block.z == 0;
  if (runtime_block && !caps.runtime_group_size)
    throw InvalidArgument(cat("RawKernel ", st.name, ": block (0, 0, 0) lets the runtime choose the ", caps.group_word, " size, which ",
                              d.spec(), " does not; give a ", caps.group_word, " size"));
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || (!runtime_block && (block.x == 0 || block.y == 0 || block.z == 0)))
    throw InvalidArgument(cat("RawKernel ", st.name, ": grid (", grid.x, ", ", grid.y, ", ", grid.z, ") and block (", block.x, ", ",
                              block.y, ", ", block.z, ") must be positive"));
  for (std::size_t j = 0; j < args.size(); ++j)
    if (args[j].is_empty_array())
      throw InvalidArgument(cat("RawKernel ", st.name, ": argument ", j, " is an empty Array (default-constructed or moved-from); ",
                                "pass an array that holds data"));
  if (shared_bytes > 0 && !caps.local_memory_per_launch)
    throw InvalidArgument(cat("RawKernel ", st.name, ": shared_bytes (", shared_bytes, ") is dynamic ", caps.local_memory_word,
                              " memory given with the launch, which ", d.spec(), " does not take: its kernels take ",
                              caps.local_memory_word, " memory as a pointer parameter (", name(d.backend()),
                              "): pass RawArg::local(", shared_bytes, ") as that argument instead"));
  std::size_t local_bytes = shared_bytes;
  for (auto& a : args)
    if (a.is_local()) local_bytes += a.size();
  const auto limit = d.impl().info().max_local_bytes;
  if (limit > 0 && local_bytes > limit)
    throw InvalidArgument(cat("RawKernel ", st.name, ": ", local_bytes, " bytes of ", caps.local_memory_word,
                              " memory asked for, but ", d.spec(), " allows at most ", limit, " per ", caps.group_word));
  auto kernel = raw_compile(d, st.backend, st.key, st.source, st.name, st.options);
  check_args(st.name, d, *kernel, args);
  const auto& q = detail::thread_queue_shared(d);
  std::vector<detail::KernelArg> kargs;
  std::vector<std::shared_ptr<detail::Buffer>> buffers;
  kargs.reserve(args.size());
  buffers.reserve(args.size());
  for (std::size_t j = 0; j < args.size(); ++j) {
    const RawArg& a = args[j];
    if (a.is_local()) {
      kargs.push_back(detail::KernelArg::local(a.size()));
      continue;
    }
    if (!a.is_array()) {
      detail::KernelArg k;
      k.kind = detail::KernelArg::Kind::scalar;
      k.size = a.size();
      std::memcpy(k.value.data(), a.bytes().data(), a.size());
      kargs.push_back(k);
      continue;
    }
    auto n = detail::node_of(a.array(), "RawKernel argument");
    if (n->device() != d)
      throw InvalidArgument(cat("RawKernel ", st.name, ": argument ", j, " is on ", n->device().spec(), " but the kernel runs on ", d.spec()));
    const auto& v = detail::evaluate(n);
    if (!detail::is_contiguous_view(n->shape(), v.strides))
      throw InvalidArgument(cat("RawKernel ", st.name, ": argument ", j, " (shape ", to_string(n->shape()),
                                ") is a strided view; pass a.copy() so the kernel sees its elements in order"));
    std::size_t offset = static_cast<std::size_t>(v.offset) * itemsize(n->dtype());
    if (offset != 0 && !caps.memory_arg_offsets)
      throw InvalidArgument(cat("RawKernel ", st.name, ": argument ", j, " starts ", offset, " bytes into its buffer, which ",
                                name(d.backend()), " cannot pass to a kernel; pass a.copy()"));
    kargs.push_back(detail::KernelArg::memory(v.buffer->handle(), offset));
    buffers.push_back(v.buffer);
  }
  // The kernel may read and write every array it gets: lazy expressions over them are evaluated
  // first (docs/design/threading.md#writes-and-lazy-readers), then the kernel is ordered as a
  // write.
  for (auto& b : buffers) detail::settle_pending_readers(*b);
  for (auto& b : buffers) b->before_write(q);
  detail::LaunchDims dims;
  if (runtime_block) {
    dims.global = {grid.x, grid.y, grid.z};  // work-items; OpenCL picks the work-group (local = NULL)
  } else {
    dims.global = {std::size_t{grid.x} * block.x, std::size_t{grid.y} * block.y, std::size_t{grid.z} * block.z};
    dims.local = {block.x, block.y, block.z};
  }
  dims.dynamic_local_bytes = shared_bytes;
  d.impl().launch(*q, *kernel, dims, kargs);
  for (auto& b : buffers) b->after_write(q);
}

}  // namespace porta
