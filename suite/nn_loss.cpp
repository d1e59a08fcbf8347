// The built-in loss modules: MSELoss, L1Loss, SmoothL1Loss, HuberLoss, CrossEntropyLoss,
// NLLLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss.
#include "suite/modules_internal.h"

namespace opsfuzz::suite::builtin_nn {
namespace {

// Python's deprecated size_average/reduce arguments: accepted only as None.
void no_legacy_reduction(const Bound& b) {
  if (!b.none("size_average") || !b.none("reduce"))
    throw std::invalid_argument(b.what() + ": size_average and reduce are deprecated; use reduction");
}

template <class Options> Options with_reduction(Options o, const Bound& b) {
  std::string r = b.s("reduction");
  if (r == "mean") o.reduction(torch::kMean);
  else if (r == "sum") o.reduction(torch::kSum);
  else if (r == "none") o.reduction(torch::kNone);
  else throw std::invalid_argument(b.what() + ": unknown reduction '" + r + "'");
  return o;
}

// A loss module: forward(input, target).
template <class M> std::shared_ptr<Module> loss(const Bound& b, M m) {
  return wrap<M>(b, std::move(m), {"input", "target"}, [](M& m, const Bound& in) {
    return c10::IValue(m->forward(tensor(in, "input"), tensor(in, "target")));
  });
}

}  // namespace

void register_losses() {
  const Signature legacy = {{"size_average", None}, {"reduce", None}, {"reduction", str("mean")}};
  reg("MSELoss", legacy, [](const Bound& b) {
    no_legacy_reduction(b);
    return loss(b, nn::MSELoss(with_reduction(nn::MSELossOptions(), b)));
  });
  reg("L1Loss", legacy, [](const Bound& b) {
    no_legacy_reduction(b);
    return loss(b, nn::L1Loss(with_reduction(nn::L1LossOptions(), b)));
  });
  Signature smooth = legacy;
  smooth.push_back({"beta", 1.0});
  reg("SmoothL1Loss", smooth, [](const Bound& b) {
    no_legacy_reduction(b);
    auto o = with_reduction(nn::SmoothL1LossOptions(), b).beta(b.d("beta"));
    return loss(b, nn::SmoothL1Loss(o));
  });
  reg("HuberLoss", {{"reduction", str("mean")}, {"delta", 1.0}}, [](const Bound& b) {
    return loss(b, nn::HuberLoss(with_reduction(nn::HuberLossOptions(), b).delta(b.d("delta"))));
  });
  reg("CrossEntropyLoss",
      {{"weight", None},
       {"size_average", None},
       {"ignore_index", -100},
       {"reduce", None},
       {"reduction", str("mean")},
       {"label_smoothing", 0.0}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::CrossEntropyLossOptions(), b)
                     .weight(tensor_or_undefined(b, "weight"))
                     .ignore_index(b.i("ignore_index"))
                     .label_smoothing(b.d("label_smoothing"));
        return loss(b, nn::CrossEntropyLoss(o));
      });
  reg("NLLLoss",
      {{"weight", None}, {"size_average", None}, {"ignore_index", -100}, {"reduce", None}, {"reduction", str("mean")}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::NLLLossOptions(), b)
                     .weight(tensor_or_undefined(b, "weight"))
                     .ignore_index(b.i("ignore_index"));
        return loss(b, nn::NLLLoss(o));
      });
  reg("BCELoss", {{"weight", None}, {"size_average", None}, {"reduce", None}, {"reduction", str("mean")}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::BCELossOptions(), b).weight(tensor_or_undefined(b, "weight"));
        return loss(b, nn::BCELoss(o));
      });
  reg("BCEWithLogitsLoss",
      {{"weight", None}, {"size_average", None}, {"reduce", None}, {"reduction", str("mean")}, {"pos_weight", None}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::BCEWithLogitsLossOptions(), b)
                     .weight(tensor_or_undefined(b, "weight"))
                     .pos_weight(tensor_or_undefined(b, "pos_weight"));
        return loss(b, nn::BCEWithLogitsLoss(o));
      });
  reg("KLDivLoss", {{"size_average", None}, {"reduce", None}, {"reduction", str("mean")}, {"log_target", false}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = nn::KLDivLossOptions().log_target(b.b("log_target"));
        std::string r = b.s("reduction");
        if (r == "batchmean") o.reduction(torch::kBatchMean);
        else o = with_reduction(o, b);
        return loss(b, nn::KLDivLoss(o));
      });
}

}  // namespace opsfuzz::suite::builtin_nn
