// The built-in activation modules (ReLU ... Softmax, Dropout) and pooling modules (MaxPool*d,
// AvgPool*d, AdaptiveAvgPool*d, AdaptiveMaxPool2d).
#include "suite/modules_internal.h"

namespace opsfuzz::suite::builtin_nn {
namespace {

// An activation computed by an ATen function (for modules the C++ frontend lacks, or whose
// Python arguments it does not take).
void reg_fn(const std::string& name, Signature ctor, std::function<at::Tensor(const Bound&, const at::Tensor&)> fn) {
  reg(name, ctor, [name, fn](const Bound& b) -> std::shared_ptr<Module> {
    return std::make_shared<FnModule>(b.what() + ".forward", Signature{"input"},
                                      [b, fn](const Bound& in) { return c10::IValue(fn(b, tensor(in, "input"))); });
  });
}

// Python's implicit softmax dim, used when dim is None.
int64_t implicit_softmax_dim(const at::Tensor& x) {
  int64_t n = x.dim();
  return (n == 0 || n == 1 || n == 3) ? 0 : 1;
}

template <size_t D, class Holder> void register_max_pool(const std::string& name) {
  reg(name,
      {"kernel_size",
       {"stride", None},
       {"padding", 0},
       {"dilation", 1},
       {"return_indices", false},
       {"ceil_mode", false}},
      [](const Bound& b) {
        nn::MaxPoolOptions<D> o(arr<D>(b, "kernel_size"));
        o.stride(b.none("stride") ? arr<D>(b, "kernel_size") : arr<D>(b, "stride"));
        o.padding(arr<D>(b, "padding")).dilation(arr<D>(b, "dilation")).ceil_mode(b.b("ceil_mode"));
        bool indices = b.b("return_indices");
        return wrap<Holder>(b, Holder(o), {"input"}, [indices](Holder& m, const Bound& in) {
          if (!indices) return c10::IValue(m->forward(tensor(in, "input")));
          auto [out, index] = m->forward_with_indices(tensor(in, "input"));
          return tuple({out, index});
        });
      });
}

template <size_t D, class Holder> void register_avg_pool(const std::string& name) {
  Signature s = {"kernel_size", {"stride", None}, {"padding", 0}, {"ceil_mode", false}, {"count_include_pad", true}};
  if (D > 1) s.push_back({"divisor_override", None});
  reg(name, s, [](const Bound& b) {
    nn::AvgPoolOptions<D> o(arr<D>(b, "kernel_size"));
    o.stride(b.none("stride") ? arr<D>(b, "kernel_size") : arr<D>(b, "stride"));
    o.padding(arr<D>(b, "padding")).ceil_mode(b.b("ceil_mode"));
    o.count_include_pad(b.b("count_include_pad"));
    if (D > 1) o.divisor_override(c10_opt(b.opt_i("divisor_override")));
    return unary(b, Holder(o));
  });
}

}  // namespace

void register_activations() {
  reg("ReLU", {{"inplace", false}}, [](const Bound& b) { return unary(b, nn::ReLU(nn::ReLUOptions(b.b("inplace")))); });
  reg("ReLU6", {{"inplace", false}},
      [](const Bound& b) { return unary(b, nn::ReLU6(nn::ReLU6Options(b.b("inplace")))); });
  reg("LeakyReLU", {{"negative_slope", 0.01}, {"inplace", false}}, [](const Bound& b) {
    return unary(b,
                 nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(b.d("negative_slope")).inplace(b.b("inplace"))));
  });
  reg("PReLU", placement({{"num_parameters", 1}, {"init", 0.25}}), [](const Bound& b) {
    return unary(b, placed(nn::PReLU(nn::PReLUOptions().num_parameters(b.i("num_parameters")).init(b.d("init"))), b));
  });
  reg("ELU", {{"alpha", 1.0}, {"inplace", false}},
      [](const Bound& b) { return unary(b, nn::ELU(nn::ELUOptions().alpha(b.d("alpha")).inplace(b.b("inplace")))); });
  reg("SELU", {{"inplace", false}}, [](const Bound& b) { return unary(b, nn::SELU(nn::SELUOptions(b.b("inplace")))); });
  reg("GELU", {{"approximate", str("none")}},
      [](const Bound& b) { return unary(b, nn::GELU(nn::GELUOptions().approximate(b.s("approximate")))); });
  // The C++ SiLU and Mish modules take no inplace flag; the values are the same either way.
  reg("SiLU", {{"inplace", false}}, [](const Bound& b) { return unary(b, nn::SiLU()); });
  reg("Mish", {{"inplace", false}}, [](const Bound& b) { return unary(b, nn::Mish()); });
  reg("Sigmoid", {}, [](const Bound& b) { return unary(b, nn::Sigmoid()); });
  reg("Tanh", {}, [](const Bound& b) { return unary(b, nn::Tanh()); });
  reg("Hardtanh", {{"min_val", -1.0}, {"max_val", 1.0}, {"inplace", false}}, [](const Bound& b) {
    return unary(
        b, nn::Hardtanh(nn::HardtanhOptions().min_val(b.d("min_val")).max_val(b.d("max_val")).inplace(b.b("inplace"))));
  });
  reg_fn("Hardswish", {{"inplace", false}}, [](const Bound&, const at::Tensor& x) { return at::hardswish(x); });
  reg_fn("Hardsigmoid", {{"inplace", false}}, [](const Bound&, const at::Tensor& x) { return at::hardsigmoid(x); });
  reg("Softplus", {{"beta", 1.0}, {"threshold", 20.0}}, [](const Bound& b) {
    return unary(b, nn::Softplus(nn::SoftplusOptions().beta(b.d("beta")).threshold(b.d("threshold"))));
  });
  reg_fn("Softmax", {{"dim", None}}, [](const Bound& b, const at::Tensor& x) {
    return at::softmax(x, b.opt_i("dim").value_or(implicit_softmax_dim(x)));
  });
  reg_fn("LogSoftmax", {{"dim", None}}, [](const Bound& b, const at::Tensor& x) {
    return at::log_softmax(x, b.opt_i("dim").value_or(implicit_softmax_dim(x)));
  });
  reg("LogSigmoid", {}, [](const Bound& b) { return unary(b, nn::LogSigmoid()); });
  reg("Softsign", {}, [](const Bound& b) { return unary(b, nn::Softsign()); });
  reg("Tanhshrink", {}, [](const Bound& b) { return unary(b, nn::Tanhshrink()); });
  reg("Dropout", {{"p", 0.5}, {"inplace", false}},
      [](const Bound& b) { return unary(b, nn::Dropout(nn::DropoutOptions(b.d("p")).inplace(b.b("inplace")))); });
}

void register_more_activations() {
  reg("CELU", {{"alpha", 1.0}, {"inplace", false}},
      [](const Bound& b) { return unary(b, nn::CELU(nn::CELUOptions().alpha(b.d("alpha")).inplace(b.b("inplace")))); });
  reg("GLU", {{"dim", -1}}, [](const Bound& b) { return unary(b, nn::GLU(nn::GLUOptions(b.i("dim")))); });
  reg("Hardshrink", {{"lambd", 0.5}},
      [](const Bound& b) { return unary(b, nn::Hardshrink(nn::HardshrinkOptions(b.d("lambd")))); });
  reg("Softshrink", {{"lambd", 0.5}},
      [](const Bound& b) { return unary(b, nn::Softshrink(nn::SoftshrinkOptions(b.d("lambd")))); });
  reg("Threshold", {"threshold", "value", {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::Threshold(nn::ThresholdOptions(b.d("threshold"), b.d("value")).inplace(b.b("inplace"))));
  });
  reg_fn("Softmin", {{"dim", None}}, [](const Bound& b, const at::Tensor& x) {
    return at::softmax(-x, b.opt_i("dim").value_or(implicit_softmax_dim(x)));
  });
  reg("Softmax2d", {}, [](const Bound& b) { return unary(b, nn::Softmax2d()); });
}

void register_pooling() {
  register_max_pool<1, nn::MaxPool1d>("MaxPool1d");
  register_max_pool<2, nn::MaxPool2d>("MaxPool2d");
  register_max_pool<3, nn::MaxPool3d>("MaxPool3d");
  register_avg_pool<1, nn::AvgPool1d>("AvgPool1d");
  register_avg_pool<2, nn::AvgPool2d>("AvgPool2d");
  register_avg_pool<3, nn::AvgPool3d>("AvgPool3d");
  reg("AdaptiveAvgPool1d", {"output_size"}, [](const Bound& b) {
    return unary(b, nn::AdaptiveAvgPool1d(nn::AdaptiveAvgPool1dOptions(arr<1>(b, "output_size"))));
  });
  reg("AdaptiveAvgPool2d", {"output_size"}, [](const Bound& b) {
    auto sizes = b.ints("output_size");
    if (sizes.size() == 1) sizes.push_back(sizes[0]);
    return unary(b, nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(sizes)));
  });
  reg("AdaptiveAvgPool3d", {"output_size"}, [](const Bound& b) {
    auto sizes = b.ints("output_size");
    if (sizes.size() == 1) sizes = {sizes[0], sizes[0], sizes[0]};
    return unary(b, nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions(sizes)));
  });
  reg("AdaptiveMaxPool2d", {"output_size", {"return_indices", false}}, [](const Bound& b) {
    auto sizes = b.ints("output_size");
    if (sizes.size() == 1) sizes.push_back(sizes[0]);
    bool indices = b.b("return_indices");
    return wrap<nn::AdaptiveMaxPool2d>(b, nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions(sizes)), {"input"},
                                       [indices](nn::AdaptiveMaxPool2d& m, const Bound& in) {
                                         if (!indices) return c10::IValue(m->forward(tensor(in, "input")));
                                         auto [out, index] = m->forward_with_indices(tensor(in, "input"));
                                         return tuple({out, index});
                                       });
  });
}

}  // namespace opsfuzz::suite::builtin_nn
