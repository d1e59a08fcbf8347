// The built-in linear, convolution and embedding modules: Linear, Bilinear, Conv*d,
// ConvTranspose*d, Embedding, EmbeddingBag.
#include "suite/modules_internal.h"

namespace opsfuzz::suite::builtin_nn {
namespace {

nn::detail::conv_padding_mode_t padding_mode(const Bound& b) {
  std::string m = b.s("padding_mode");
  if (m == "zeros") return torch::kZeros;
  if (m == "reflect") return torch::kReflect;
  if (m == "replicate") return torch::kReplicate;
  if (m == "circular") return torch::kCircular;
  throw std::invalid_argument(b.what() + ": unknown padding_mode '" + m + "'");
}

template <size_t D> nn::detail::conv_padding_t<D> conv_padding(const Bound& b) {
  const auto& p = b.get("padding");
  if (p.isString()) {
    if (p.toStringRef() == "same") return torch::kSame;
    if (p.toStringRef() == "valid") return torch::kValid;
    throw std::invalid_argument(b.what() + ": unknown padding '" + p.toStringRef() + "'");
  }
  return arr<D>(b, "padding");
}

template <size_t D, class Holder> void register_conv(const std::string& name) {
  reg(name,
      placement({"in_channels",
                 "out_channels",
                 "kernel_size",
                 {"stride", 1},
                 {"padding", 0},
                 {"dilation", 1},
                 {"groups", 1},
                 {"bias", true},
                 {"padding_mode", str("zeros")}}),
      [](const Bound& b) {
        nn::ConvOptions<D> o(b.i("in_channels"), b.i("out_channels"), arr<D>(b, "kernel_size"));
        o.stride(arr<D>(b, "stride")).padding(conv_padding<D>(b)).dilation(arr<D>(b, "dilation"));
        o.groups(b.i("groups")).bias(b.b("bias")).padding_mode(padding_mode(b));
        return unary(b, placed(Holder(o), b));
      });
}

template <size_t D, class Holder> void register_conv_transpose(const std::string& name) {
  reg(name,
      placement({"in_channels",
                 "out_channels",
                 "kernel_size",
                 {"stride", 1},
                 {"padding", 0},
                 {"output_padding", 0},
                 {"groups", 1},
                 {"bias", true},
                 {"dilation", 1},
                 {"padding_mode", str("zeros")}}),
      [](const Bound& b) {
        nn::ConvTransposeOptions<D> o(b.i("in_channels"), b.i("out_channels"), arr<D>(b, "kernel_size"));
        o.stride(arr<D>(b, "stride")).padding(arr<D>(b, "padding"));
        o.output_padding(arr<D>(b, "output_padding")).groups(b.i("groups")).bias(b.b("bias"));
        o.dilation(arr<D>(b, "dilation")).padding_mode(padding_mode(b));
        return wrap<Holder>(b, placed(Holder(o), b), {"input", {"output_size", None}}, [](Holder& m, const Bound& in) {
          c10::optional<at::IntArrayRef> size;
          std::vector<int64_t> sizes;
          if (!in.none("output_size")) {
            sizes = in.ints("output_size");
            size = at::IntArrayRef(sizes);
          }
          return c10::IValue(m->forward(tensor(in, "input"), size));
        });
      });
}

}  // namespace

void register_linear_and_conv() {
  reg("Linear", placement({"in_features", "out_features", {"bias", true}}), [](const Bound& b) {
    auto o = nn::LinearOptions(b.i("in_features"), b.i("out_features")).bias(b.b("bias"));
    return unary(b, placed(nn::Linear(o), b));
  });
  reg("Bilinear", placement({"in1_features", "in2_features", "out_features", {"bias", true}}), [](const Bound& b) {
    auto o = nn::BilinearOptions(b.i("in1_features"), b.i("in2_features"), b.i("out_features")).bias(b.b("bias"));
    return wrap<nn::Bilinear>(b, placed(nn::Bilinear(o), b), {"input1", "input2"},
                              [](nn::Bilinear& m, const Bound& in) {
                                return c10::IValue(m->forward(tensor(in, "input1"), tensor(in, "input2")));
                              });
  });
  register_conv<1, nn::Conv1d>("Conv1d");
  register_conv<2, nn::Conv2d>("Conv2d");
  register_conv<3, nn::Conv3d>("Conv3d");
  register_conv_transpose<1, nn::ConvTranspose1d>("ConvTranspose1d");
  register_conv_transpose<2, nn::ConvTranspose2d>("ConvTranspose2d");
  register_conv_transpose<3, nn::ConvTranspose3d>("ConvTranspose3d");
}

void register_embeddings() {
  reg("Embedding",
      placement({"num_embeddings",
                 "embedding_dim",
                 {"padding_idx", None},
                 {"max_norm", None},
                 {"norm_type", 2.0},
                 {"scale_grad_by_freq", false},
                 {"sparse", false}}),
      [](const Bound& b) {
        auto o = nn::EmbeddingOptions(b.i("num_embeddings"), b.i("embedding_dim"))
                     .padding_idx(c10_opt(b.opt_i("padding_idx")))
                     .max_norm(c10_opt(b.opt_d("max_norm")))
                     .norm_type(b.d("norm_type"))
                     .scale_grad_by_freq(b.b("scale_grad_by_freq"))
                     .sparse(b.b("sparse"));
        return unary(b, placed(nn::Embedding(o), b));
      });
  reg("EmbeddingBag",
      placement({"num_embeddings",
                 "embedding_dim",
                 {"max_norm", None},
                 {"norm_type", 2.0},
                 {"scale_grad_by_freq", false},
                 {"mode", str("mean")},
                 {"sparse", false},
                 {"include_last_offset", false},
                 {"padding_idx", None}}),
      [](const Bound& b) {
        auto o = nn::EmbeddingBagOptions(b.i("num_embeddings"), b.i("embedding_dim"))
                     .max_norm(c10_opt(b.opt_d("max_norm")))
                     .norm_type(b.d("norm_type"))
                     .scale_grad_by_freq(b.b("scale_grad_by_freq"))
                     .sparse(b.b("sparse"))
                     .include_last_offset(b.b("include_last_offset"))
                     .padding_idx(c10_opt(b.opt_i("padding_idx")));
        std::string mode = b.s("mode");
        if (mode == "sum") o.mode(torch::kSum);
        else if (mode == "mean") o.mode(torch::kMean);
        else if (mode == "max") o.mode(torch::kMax);
        else throw std::invalid_argument(b.what() + ": unknown mode '" + mode + "'");
        return wrap<nn::EmbeddingBag>(
            b, placed(nn::EmbeddingBag(o), b), {"input", {"offsets", None}, {"per_sample_weights", None}},
            [](nn::EmbeddingBag& m, const Bound& in) {
              return c10::IValue(m->forward(tensor(in, "input"), tensor_or_undefined(in, "offsets"),
                                            tensor_or_undefined(in, "per_sample_weights")));
            });
      });
}

}  // namespace opsfuzz::suite::builtin_nn
