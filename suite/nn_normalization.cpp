// The built-in normalization modules: BatchNorm*d, InstanceNorm*d, LayerNorm, GroupNorm.
#include "suite/modules_internal.h"

namespace opsfuzz::suite::builtin_nn {
namespace {

template <class Holder, class Options> void register_batch_norm(const std::string& name) {
  reg(name,
      placement({"num_features", {"eps", 1e-5}, {"momentum", 0.1}, {"affine", true}, {"track_running_stats", true}}),
      [](const Bound& b) {
        Options o(b.i("num_features"));
        o.eps(b.d("eps")).momentum(c10_opt(b.opt_d("momentum"))).affine(b.b("affine"));
        o.track_running_stats(b.b("track_running_stats"));
        return unary(b, placed(Holder(o), b));
      });
}

template <class Holder, class Options> void register_instance_norm(const std::string& name) {
  reg(name,
      placement({"num_features", {"eps", 1e-5}, {"momentum", 0.1}, {"affine", false}, {"track_running_stats", false}}),
      [](const Bound& b) {
        Options o(b.i("num_features"));
        o.eps(b.d("eps")).momentum(b.d("momentum")).affine(b.b("affine"));
        o.track_running_stats(b.b("track_running_stats"));
        return unary(b, placed(Holder(o), b));
      });
}

}  // namespace

void register_norms() {
  register_batch_norm<nn::BatchNorm1d, nn::BatchNorm1dOptions>("BatchNorm1d");
  register_batch_norm<nn::BatchNorm2d, nn::BatchNorm2dOptions>("BatchNorm2d");
  register_batch_norm<nn::BatchNorm3d, nn::BatchNorm3dOptions>("BatchNorm3d");
  register_instance_norm<nn::InstanceNorm1d, nn::InstanceNorm1dOptions>("InstanceNorm1d");
  register_instance_norm<nn::InstanceNorm2d, nn::InstanceNorm2dOptions>("InstanceNorm2d");
  register_instance_norm<nn::InstanceNorm3d, nn::InstanceNorm3dOptions>("InstanceNorm3d");
  reg("LayerNorm", placement({"normalized_shape", {"eps", 1e-5}, {"elementwise_affine", true}}), [](const Bound& b) {
    auto o =
        nn::LayerNormOptions(b.ints("normalized_shape")).eps(b.d("eps")).elementwise_affine(b.b("elementwise_affine"));
    return unary(b, placed(nn::LayerNorm(o), b));
  });
  reg("GroupNorm", placement({"num_groups", "num_channels", {"eps", 1e-5}, {"affine", true}}), [](const Bound& b) {
    auto o = nn::GroupNormOptions(b.i("num_groups"), b.i("num_channels")).eps(b.d("eps")).affine(b.b("affine"));
    return unary(b, placed(nn::GroupNorm(o), b));
  });
}

}  // namespace opsfuzz::suite::builtin_nn
