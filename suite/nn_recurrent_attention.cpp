// The built-in recurrent and attention modules: RNN, LSTM, GRU and their cells,
// MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer.
#include "suite/modules_internal.h"

namespace opsfuzz::suite::builtin_nn {
namespace {

template <class Holder> std::shared_ptr<Module> recurrent(const Bound& b, Holder m) {
  return wrap<Holder>(b, placed(std::move(m), b), {"input", {"hx", None}},
                      [](Holder& m, const Bound& in) -> c10::IValue {
                        at::Tensor input = tensor(in, "input");
                        if constexpr (std::is_same_v<Holder, nn::LSTM>) {
                          c10::optional<std::tuple<at::Tensor, at::Tensor>> hx;
                          if (!in.none("hx")) {
                            auto hc = in.get("hx").toTupleRef().elements();
                            hx = std::make_tuple(hc.at(0).toTensor(), hc.at(1).toTensor());
                          }
                          auto [out, state] = m->forward(input, hx);
                          return tuple({out, tuple({std::get<0>(state), std::get<1>(state)})});
                        } else {
                          auto [out, h] = m->forward(input, tensor_or_undefined(in, "hx"));
                          return tuple({out, h});
                        }
                      });
}

Signature rnn_signature(bool lstm) {
  Signature s = {"input_size", "hidden_size", {"num_layers", 1}};
  if (!lstm) s.push_back({"nonlinearity", str("tanh")});
  for (Param p : Signature{{"bias", true}, {"batch_first", false}, {"dropout", 0.0}, {"bidirectional", false}})
    s.push_back(p);
  if (lstm) s.push_back({"proj_size", 0});
  return placement(s);
}

template <class Options> Options rnn_options(const Bound& b) {
  Options o(b.i("input_size"), b.i("hidden_size"));
  o.num_layers(b.i("num_layers")).bias(b.b("bias")).batch_first(b.b("batch_first"));
  o.dropout(b.d("dropout")).bidirectional(b.b("bidirectional"));
  return o;
}

Signature transformer_layer_signature() {
  return placement({"d_model",
                    "nhead",
                    {"dim_feedforward", 2048},
                    {"dropout", 0.1},
                    {"activation", str("relu")},
                    {"layer_norm_eps", 1e-5},
                    {"batch_first", false},
                    {"norm_first", false}});
}

// Options shared by the encoder and decoder layers. The C++ layers have a fixed eps and are
// post-norm: refuse what they cannot do.
template <class Options> Options transformer_layer_options(const Bound& b) {
  auto o = Options(b.i("d_model"), b.i("nhead")).dim_feedforward(b.i("dim_feedforward")).dropout(b.d("dropout"));
  std::string act = b.s("activation");
  if (act == "relu") o.activation(torch::kReLU);
  else if (act == "gelu") o.activation(torch::kGELU);
  else throw std::invalid_argument(b.what() + ": unknown activation '" + act + "'");
  if (b.d("layer_norm_eps") != 1e-5 || b.b("norm_first"))
    throw std::invalid_argument(b.what() + ": layer_norm_eps other than 1e-5 and norm_first=True are not available");
  return o;
}

// The C++ layers are sequence-first only: batch-first inputs and outputs are transposed.
at::Tensor sequence_first(const at::Tensor& t, bool batch_first) { return batch_first ? t.transpose(0, 1) : t; }

void register_transformer_layers() {
  reg("TransformerEncoderLayer", transformer_layer_signature(), [](const Bound& b) {
    auto o = transformer_layer_options<nn::TransformerEncoderLayerOptions>(b);
    bool bf = b.b("batch_first");
    return wrap<nn::TransformerEncoderLayer>(
        b, placed(nn::TransformerEncoderLayer(o), b), {"src", {"src_mask", None}, {"src_key_padding_mask", None}},
        [bf](nn::TransformerEncoderLayer& m, const Bound& in) {
          at::Tensor out = m->forward(sequence_first(tensor(in, "src"), bf), tensor_or_undefined(in, "src_mask"),
                                      tensor_or_undefined(in, "src_key_padding_mask"));
          return c10::IValue(sequence_first(out, bf));
        });
  });
  reg("TransformerDecoderLayer", transformer_layer_signature(), [](const Bound& b) {
    auto o = transformer_layer_options<nn::TransformerDecoderLayerOptions>(b);
    bool bf = b.b("batch_first");
    return wrap<nn::TransformerDecoderLayer>(
        b, placed(nn::TransformerDecoderLayer(o), b),
        {"tgt",
         "memory",
         {"tgt_mask", None},
         {"memory_mask", None},
         {"tgt_key_padding_mask", None},
         {"memory_key_padding_mask", None}},
        [bf](nn::TransformerDecoderLayer& m, const Bound& in) {
          at::Tensor out = m->forward(sequence_first(tensor(in, "tgt"), bf), sequence_first(tensor(in, "memory"), bf),
                                      tensor_or_undefined(in, "tgt_mask"), tensor_or_undefined(in, "memory_mask"),
                                      tensor_or_undefined(in, "tgt_key_padding_mask"),
                                      tensor_or_undefined(in, "memory_key_padding_mask"));
          return c10::IValue(sequence_first(out, bf));
        });
  });
}

}  // namespace

void register_recurrent_and_attention() {
  reg("LSTM", rnn_signature(true), [](const Bound& b) {
    auto o = rnn_options<nn::LSTMOptions>(b).proj_size(b.i("proj_size"));
    return recurrent(b, nn::LSTM(o));
  });
  reg("GRU", rnn_signature(false), [](const Bound& b) {
    if (b.s("nonlinearity") != "tanh")
      throw std::invalid_argument(b.what() + ": unexpected keyword argument 'nonlinearity'");
    return recurrent(b, nn::GRU(rnn_options<nn::GRUOptions>(b)));
  });
  reg("RNN", rnn_signature(false), [](const Bound& b) {
    auto o = rnn_options<nn::RNNOptions>(b);
    std::string f = b.s("nonlinearity");
    if (f == "tanh") o.nonlinearity(torch::kTanh);
    else if (f == "relu") o.nonlinearity(torch::kReLU);
    else throw std::invalid_argument(b.what() + ": unknown nonlinearity '" + f + "'");
    return recurrent(b, nn::RNN(o));
  });
  reg("MultiheadAttention",
      placement({"embed_dim",
                 "num_heads",
                 {"dropout", 0.0},
                 {"bias", true},
                 {"add_bias_kv", false},
                 {"add_zero_attn", false},
                 {"kdim", None},
                 {"vdim", None},
                 {"batch_first", false}}),
      [](const Bound& b) {
        int64_t e = b.i("embed_dim");
        auto o = nn::MultiheadAttentionOptions(e, b.i("num_heads"))
                     .dropout(b.d("dropout"))
                     .bias(b.b("bias"))
                     .add_bias_kv(b.b("add_bias_kv"))
                     .add_zero_attn(b.b("add_zero_attn"))
                     .kdim(b.opt_i("kdim").value_or(e))
                     .vdim(b.opt_i("vdim").value_or(e));
        bool batch_first = b.b("batch_first");  // the C++ module is sequence-first only
        return wrap<nn::MultiheadAttention>(
            b, placed(nn::MultiheadAttention(o), b),
            {"query",
             "key",
             "value",
             {"key_padding_mask", None},
             {"need_weights", true},
             {"attn_mask", None},
             {"average_attn_weights", true}},
            [batch_first](nn::MultiheadAttention& m, const Bound& in) {
              auto seq = [&](const char* n) {
                at::Tensor t = tensor(in, n);
                return batch_first ? t.transpose(0, 1) : t;
              };
              auto [out, weights] =
                  m->forward(seq("query"), seq("key"), seq("value"), tensor_or_undefined(in, "key_padding_mask"),
                             in.b("need_weights"), tensor_or_undefined(in, "attn_mask"), in.b("average_attn_weights"));
              return tuple({batch_first ? out.transpose(0, 1) : out, weights.defined() ? c10::IValue(weights) : None});
            });
      });
  register_transformer_layers();
}

void register_cells() {
  reg("LSTMCell", placement({"input_size", "hidden_size", {"bias", true}}), [](const Bound& b) {
    auto o = nn::LSTMCellOptions(b.i("input_size"), b.i("hidden_size")).bias(b.b("bias"));
    return wrap<nn::LSTMCell>(b, placed(nn::LSTMCell(o), b), {"input", {"hx", None}},
                              [](nn::LSTMCell& m, const Bound& in) {
                                c10::optional<std::tuple<at::Tensor, at::Tensor>> hx;
                                if (!in.none("hx")) {
                                  auto hc = in.get("hx").toTupleRef().elements();
                                  hx = std::make_tuple(hc.at(0).toTensor(), hc.at(1).toTensor());
                                }
                                auto [h, c] = m->forward(tensor(in, "input"), hx);
                                return tuple({h, c});
                              });
  });
  reg("GRUCell", placement({"input_size", "hidden_size", {"bias", true}}), [](const Bound& b) {
    auto o = nn::GRUCellOptions(b.i("input_size"), b.i("hidden_size")).bias(b.b("bias"));
    return wrap<nn::GRUCell>(b, placed(nn::GRUCell(o), b), {"input", {"hx", None}},
                             [](nn::GRUCell& m, const Bound& in) {
                               return c10::IValue(m->forward(tensor(in, "input"), tensor_or_undefined(in, "hx")));
                             });
  });
  reg("RNNCell", placement({"input_size", "hidden_size", {"bias", true}, {"nonlinearity", str("tanh")}}),
      [](const Bound& b) {
        auto o = nn::RNNCellOptions(b.i("input_size"), b.i("hidden_size")).bias(b.b("bias"));
        std::string f = b.s("nonlinearity");
        if (f == "tanh") o.nonlinearity(torch::kTanh);
        else if (f == "relu") o.nonlinearity(torch::kReLU);
        else throw std::invalid_argument(b.what() + ": unknown nonlinearity '" + f + "'");
        return wrap<nn::RNNCell>(b, placed(nn::RNNCell(o), b), {"input", {"hx", None}},
                                 [](nn::RNNCell& m, const Bound& in) {
                                   return c10::IValue(m->forward(tensor(in, "input"), tensor_or_undefined(in, "hx")));
                                 });
      });
}

}  // namespace opsfuzz::suite::builtin_nn
