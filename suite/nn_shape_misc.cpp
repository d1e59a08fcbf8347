// The built-in shape, upsampling, padding, distance and container modules (Flatten, Upsample,
// *Pad*d, PixelShuffle, CosineSimilarity, Sequential, ...), and the other layers registered
// with them: Dropout1d/2d/3d, AlphaDropout, LPPool*d, AdaptiveMaxPool1d, LocalResponseNorm,
// Fold, Unfold.
#include "suite/modules_internal.h"

namespace opsfuzz::suite::builtin_nn {
namespace {

namespace F = torch::nn::functional;

// Applies modules in turn (Sequential).
class SequentialModule : public Module {
 public:
  SequentialModule(std::string what, std::vector<std::shared_ptr<Module>> steps)
      : what_(std::move(what)), steps_(std::move(steps)) {}
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) override {
    c10::IValue x = Bound(what_, {"input"}, args, kwargs).get("input");
    for (const auto& step : steps_) x = step->forward({x}, {});
    return x;
  }
  std::shared_ptr<Module> clone() const override {
    std::vector<std::shared_ptr<Module>> copies;
    for (const auto& step : steps_) copies.push_back(step->clone());
    return std::make_shared<SequentialModule>(what_, std::move(copies));
  }
  void to(c10::ScalarType dtype) override {
    for (const auto& step : steps_) step->to(dtype);
  }

 private:
  std::string what_;
  std::vector<std::shared_ptr<Module>> steps_;
};

// Upsample's int size or float scale apply to every spatial dim, known only from the input.
at::Tensor upsample(const Bound& b, const at::Tensor& x) {
  int64_t spatial = x.dim() - 2;
  auto o = F::InterpolateFuncOptions();
  if (!b.none("size")) {
    auto sizes = b.ints("size");
    if (sizes.size() == 1) sizes.assign(spatial, sizes[0]);
    o.size(sizes);
  }
  if (!b.none("scale_factor")) {
    const auto& s = b.get("scale_factor");
    std::vector<double> scales;
    if (s.isList() || s.isTuple()) {
      for (const auto& e : s.isList() ? s.toListRef().vec() : s.toTupleRef().elements().vec())
        scales.push_back(e.isInt() ? double(e.toInt()) : e.toDouble());
    } else {
      scales.assign(spatial, b.d("scale_factor"));
    }
    o.scale_factor(scales);
  }
  std::string mode = b.s("mode");
  if (mode == "nearest") o.mode(torch::kNearest);
  else if (mode == "linear") o.mode(torch::kLinear);
  else if (mode == "bilinear") o.mode(torch::kBilinear);
  else if (mode == "bicubic") o.mode(torch::kBicubic);
  else if (mode == "trilinear") o.mode(torch::kTrilinear);
  else throw std::invalid_argument(b.what() + ": unknown mode '" + mode + "'");
  o.align_corners(c10_opt(b.opt_b("align_corners")));
  o.recompute_scale_factor(c10_opt(b.opt_b("recompute_scale_factor")));
  return F::interpolate(x, o);
}

Signature upsample_signature() {
  return {{"size", None},
          {"scale_factor", None},
          {"mode", str("nearest")},
          {"align_corners", None},
          {"recompute_scale_factor", None}};
}

std::shared_ptr<Module> upsample_module(const Bound& b) {
  return std::make_shared<FnModule>(b.what() + ".forward", Signature{"input"},
                                    [b](const Bound& in) { return c10::IValue(upsample(b, tensor(in, "input"))); });
}

template <class Holder, class Options, size_t D> void register_pad(const std::string& name, bool has_value) {
  Signature s = {"padding"};
  if (has_value) s.push_back("value");
  reg(name, s, [has_value](const Bound& b) {
    (void)has_value;  // read only where Options takes a value
    if constexpr (std::is_constructible_v<Options, torch::ExpandingArray<D>, double>) {
      if (has_value) return unary(b, Holder(Options(arr<D>(b, "padding"), b.d("value"))));
    }
    if constexpr (std::is_constructible_v<Options, torch::ExpandingArray<D>>)
      return unary(b, Holder(Options(arr<D>(b, "padding"))));
    throw std::logic_error("unreachable");
  });
}

}  // namespace

void register_shapes() {
  reg("Flatten", {{"start_dim", 1}, {"end_dim", -1}}, [](const Bound& b) {
    return unary(b, nn::Flatten(nn::FlattenOptions().start_dim(b.i("start_dim")).end_dim(b.i("end_dim"))));
  });
  reg("Unflatten", {"dim", "unflattened_size"}, [](const Bound& b) {
    return unary(b, nn::Unflatten(nn::UnflattenOptions(b.i("dim"), b.ints("unflattened_size"))));
  });
  reg(
      "Identity", {}, [](const Bound& b) { return unary(b, nn::Identity()); }, true);
  reg("Upsample", upsample_signature(), upsample_module);
  // The deprecated fixed-mode forms of Upsample.
  for (auto [name, mode, corners] :
       {std::tuple{"UpsamplingNearest2d", "nearest", false}, std::tuple{"UpsamplingBilinear2d", "bilinear", true}}) {
    std::string m = mode;
    bool align = corners;
    reg(name, {{"size", None}, {"scale_factor", None}}, [m, align](const Bound& b) {
      Bound full(b.what(), upsample_signature(), {b.get("size"), b.get("scale_factor"), m},
                 align ? Kwargs{{"align_corners", true}} : Kwargs{});
      return upsample_module(full);
    });
  }
  reg("PixelShuffle", {"upscale_factor"},
      [](const Bound& b) { return unary(b, nn::PixelShuffle(nn::PixelShuffleOptions(b.i("upscale_factor")))); });
  reg("ZeroPad2d", {"padding"},
      [](const Bound& b) { return unary(b, nn::ZeroPad2d(nn::ZeroPad2dOptions(arr<4>(b, "padding")))); });
  reg("ReflectionPad2d", {"padding"},
      [](const Bound& b) { return unary(b, nn::ReflectionPad2d(nn::ReflectionPad2dOptions(arr<4>(b, "padding")))); });
  reg("CosineSimilarity", {{"dim", 1}, {"eps", 1e-8}}, [](const Bound& b) {
    auto m = nn::CosineSimilarity(nn::CosineSimilarityOptions().dim(b.i("dim")).eps(b.d("eps")));
    return wrap<nn::CosineSimilarity>(b, m, {"x1", "x2"}, [](nn::CosineSimilarity& m, const Bound& in) {
      return c10::IValue(m->forward(tensor(in, "x1"), tensor(in, "x2")));
    });
  });
  reg("PairwiseDistance", {{"p", 2.0}, {"eps", 1e-6}, {"keepdim", false}}, [](const Bound& b) {
    auto m = nn::PairwiseDistance(nn::PairwiseDistanceOptions().p(b.d("p")).eps(b.d("eps")).keepdim(b.b("keepdim")));
    return wrap<nn::PairwiseDistance>(b, m, {"x1", "x2"}, [](nn::PairwiseDistance& m, const Bound& in) {
      return c10::IValue(m->forward(tensor(in, "x1"), tensor(in, "x2")));
    });
  });
  // Sequential(*modules): its arguments are modules built by construct nodes.
  reg(
      "Sequential", {},
      [](const Bound& b) -> std::shared_ptr<Module> {
        std::vector<std::shared_ptr<Module>> steps;
        for (const auto& arg : b.rest()) {
          auto m = module_from_ivalue(arg);
          if (!m) throw std::invalid_argument(b.what() + ": arguments must be modules (construct nodes)");
          steps.push_back(m);
        }
        return std::make_shared<SequentialModule>(b.what() + ".forward", std::move(steps));
      },
      true);
}

void register_more_layers() {
  register_pad<nn::ConstantPad1d, nn::ConstantPad1dOptions, 2>("ConstantPad1d", true);
  register_pad<nn::ConstantPad2d, nn::ConstantPad2dOptions, 4>("ConstantPad2d", true);
  register_pad<nn::ConstantPad3d, nn::ConstantPad3dOptions, 6>("ConstantPad3d", true);
  register_pad<nn::ReplicationPad1d, nn::ReplicationPad1dOptions, 2>("ReplicationPad1d", false);
  register_pad<nn::ReplicationPad2d, nn::ReplicationPad2dOptions, 4>("ReplicationPad2d", false);
  register_pad<nn::ReplicationPad3d, nn::ReplicationPad3dOptions, 6>("ReplicationPad3d", false);
  register_pad<nn::ReflectionPad1d, nn::ReflectionPad1dOptions, 2>("ReflectionPad1d", false);
  register_pad<nn::ReflectionPad3d, nn::ReflectionPad3dOptions, 6>("ReflectionPad3d", false);
  reg("PixelUnshuffle", {"downscale_factor"},
      [](const Bound& b) { return unary(b, nn::PixelUnshuffle(nn::PixelUnshuffleOptions(b.i("downscale_factor")))); });
  // Dropouts are the identity in eval mode.
  reg("Dropout1d", {{"p", 0.5}, {"inplace", false}}, [](const Bound& b) { return unary(b, nn::Identity()); });
  reg("Dropout2d", {{"p", 0.5}, {"inplace", false}},
      [](const Bound& b) { return unary(b, nn::Dropout2d(nn::Dropout2dOptions(b.d("p")).inplace(b.b("inplace")))); });
  reg("Dropout3d", {{"p", 0.5}, {"inplace", false}},
      [](const Bound& b) { return unary(b, nn::Dropout3d(nn::Dropout3dOptions(b.d("p")).inplace(b.b("inplace")))); });
  reg("AlphaDropout", {{"p", 0.5}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::AlphaDropout(nn::AlphaDropoutOptions(b.d("p")).inplace(b.b("inplace"))));
  });
  reg("LPPool1d", {"norm_type", "kernel_size", {"stride", None}, {"ceil_mode", false}}, [](const Bound& b) {
    nn::LPPool1dOptions o(b.d("norm_type"), arr<1>(b, "kernel_size"));
    o.stride(b.none("stride") ? arr<1>(b, "kernel_size") : arr<1>(b, "stride")).ceil_mode(b.b("ceil_mode"));
    return unary(b, nn::LPPool1d(o));
  });
  reg("LPPool2d", {"norm_type", "kernel_size", {"stride", None}, {"ceil_mode", false}}, [](const Bound& b) {
    nn::LPPool2dOptions o(b.d("norm_type"), arr<2>(b, "kernel_size"));
    o.stride(b.none("stride") ? arr<2>(b, "kernel_size") : arr<2>(b, "stride")).ceil_mode(b.b("ceil_mode"));
    return unary(b, nn::LPPool2d(o));
  });
  reg("AdaptiveMaxPool1d", {"output_size", {"return_indices", false}}, [](const Bound& b) {
    bool indices = b.b("return_indices");
    return wrap<nn::AdaptiveMaxPool1d>(b, nn::AdaptiveMaxPool1d(nn::AdaptiveMaxPool1dOptions(arr<1>(b, "output_size"))),
                                       {"input"}, [indices](nn::AdaptiveMaxPool1d& m, const Bound& in) {
                                         if (!indices) return c10::IValue(m->forward(tensor(in, "input")));
                                         auto [out, index] = m->forward_with_indices(tensor(in, "input"));
                                         return tuple({out, index});
                                       });
  });
  reg("LocalResponseNorm", {"size", {"alpha", 1e-4}, {"beta", 0.75}, {"k", 1.0}}, [](const Bound& b) {
    auto o = nn::LocalResponseNormOptions(b.i("size")).alpha(b.d("alpha")).beta(b.d("beta")).k(b.d("k"));
    return unary(b, nn::LocalResponseNorm(o));
  });
  reg("Fold", {"output_size", "kernel_size", {"dilation", 1}, {"padding", 0}, {"stride", 1}}, [](const Bound& b) {
    auto o = nn::FoldOptions(arr<2>(b, "output_size"), arr<2>(b, "kernel_size"))
                 .dilation(arr<2>(b, "dilation"))
                 .padding(arr<2>(b, "padding"))
                 .stride(arr<2>(b, "stride"));
    return unary(b, nn::Fold(o));
  });
  reg("Unfold", {"kernel_size", {"dilation", 1}, {"padding", 0}, {"stride", 1}}, [](const Bound& b) {
    auto o = nn::UnfoldOptions(arr<2>(b, "kernel_size"))
                 .dilation(arr<2>(b, "dilation"))
                 .padding(arr<2>(b, "padding"))
                 .stride(arr<2>(b, "stride"));
    return unary(b, nn::Unfold(o));
  });
}

}  // namespace opsfuzz::suite::builtin_nn
