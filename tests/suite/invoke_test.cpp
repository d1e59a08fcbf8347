// Calling operators by name through the dispatcher: binding, overloads, conversions, errors.
#include "suite/invoke.h"

#include <ATen/ATen.h>

#include "test_util.h"

namespace opsfuzz::suite {
namespace {

std::string error_of(const std::string& op, const std::vector<c10::IValue>& args,
                     const Kwargs& kwargs = {}) {
  try {
    call_op(op, args, kwargs);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Invoke, ResolvesTheOverloadFromTheArguments) {
  at::Tensor x = at::arange(4.0), y = at::ones({4});
  EXPECT_EQ(resolve_op("aten::add", {x, y}, {}), "aten::add.Tensor");
  EXPECT_EQ(resolve_op("aten::add", {x, 2}, {}), "aten::add.Scalar");
  EXPECT_EQ(resolve_op("aten::add", {2, 3}, {}), "aten::add.int");
  EXPECT_TRUE(call_op("aten::add", {x, y}, {}).toTensor().equal(x + y));
  EXPECT_EQ(call_op("aten::add", {2, 3}, {}).toInt(), 5);  // an operator of TorchScript only
}

TEST(Invoke, ExplicitOverloadAndDefaultNamespace) {
  at::Tensor x = at::arange(4.0);
  EXPECT_EQ(resolve_op("add.Tensor", {x, x}, {}), "aten::add.Tensor");
  std::string e = error_of("aten::add.Tensor", {x, 2});
  EXPECT_NE(e.find("add.Tensor: argument 'other' expects Tensor, got int"), std::string::npos) << e;
  EXPECT_NE(error_of("aten::add.Nope", {x, x}).find("operator 'aten::add' has no overload 'Nope'"),
            std::string::npos);
  EXPECT_NE(error_of("aten::no_such_op", {x}).find("unknown operator 'aten::no_such_op'"),
            std::string::npos);
}

TEST(Invoke, KeywordsAndDefaults) {
  at::Tensor x = at::arange(4.0), y = at::ones({4});
  EXPECT_TRUE(call_op("aten::add", {x, y}, {{"alpha", 3}}).toTensor().equal(x + 3 * y));
  at::Tensor m = at::ones({2, 3});
  at::Tensor s = call_op("aten::sum", {m, c10::List<int64_t>({1})}, {}).toTensor();
  EXPECT_EQ(s.sizes(), at::IntArrayRef({2}));  // keepdim defaults to False
  at::Tensor k = call_op("aten::sum", {m, c10::List<int64_t>({1})}, {{"keepdim", true}}).toTensor();
  EXPECT_EQ(k.sizes(), at::IntArrayRef({2, 1}));
  std::string e = error_of("aten::relu", {x}, {{"alhpa", 1}});
  EXPECT_NE(e.find("unexpected keyword argument 'alhpa'"), std::string::npos) << e;
  e = error_of("aten::add.Tensor", {x}, {});
  EXPECT_NE(e.find("missing argument 'other'"), std::string::npos) << e;
  e = error_of("aten::add.Tensor", {x, x}, {{"other", x}});
  EXPECT_NE(e.find("multiple values for argument 'other'"), std::string::npos) << e;
}

TEST(Invoke, PythonLikeConversions) {
  at::Tensor img = at::rand({1, 1, 4, 4});
  // An int for int[2] repeats; an int for float converts; a dtype name for ScalarType.
  EXPECT_EQ(call_op("aten::max_pool2d", {img, 2}, {}).toTensor().sizes(),
            at::IntArrayRef({1, 1, 2, 2}));
  EXPECT_TRUE(call_op("aten::dropout", {img, 0, false}, {}).toTensor().equal(img));
  EXPECT_EQ(
      call_op("aten::sum", {img}, {{"dtype", std::string("float64")}}).toTensor().scalar_type(),
      at::kDouble);
  EXPECT_EQ(call_op("aten::zeros", {c10::List<int64_t>({2, 3})}, {}).toTensor().sizes(),
            at::IntArrayRef({2, 3}));
  EXPECT_EQ(
      call_op("aten::view", {at::arange(6), c10::List<int64_t>({3, 2})}, {}).toTensor().sizes(),
      at::IntArrayRef({3, 2}));
  c10::List<at::Tensor> parts({at::ones({2}), at::zeros({3})});
  EXPECT_EQ(call_op("aten::cat", {parts}, {}).toTensor().size(0), 5);
  // A generic list of tensors (as a tuple node gives) is converted too.
  EXPECT_EQ(call_op("aten::cat", {c10::ivalue::Tuple::create({at::ones({2}), at::ones({1})})}, {})
                .toTensor()
                .size(0),
            3);
  at::Tensor nchw = call_op("aten::contiguous", {at::rand({1, 2, 3, 3})},
                            {{"memory_format", std::string("torch.channels_last")}})
                        .toTensor();
  EXPECT_TRUE(nchw.is_contiguous(at::MemoryFormat::ChannelsLast));
  // Optional arguments default to None.
  EXPECT_EQ(call_op("aten::linear", {at::ones({2, 3}), at::ones({4, 3})}, {}).toTensor().sizes(),
            at::IntArrayRef({2, 4}));
}

TEST(Invoke, TypeErrorsSayWhatWasExpected) {
  std::string e = error_of("aten::relu", {c10::IValue(1)});
  EXPECT_NE(e.find("no overload of aten::relu accepts (int): aten::relu: argument 'self' expects "
                   "Tensor, got int"),
            std::string::npos)
      << e;
  e = error_of("aten::add", {at::ones({1}), std::string("x")});
  EXPECT_NE(e.find("aten::add.Tensor: argument 'other' expects Tensor, got str"), std::string::npos)
      << e;
  EXPECT_NE(e.find("aten::add.Scalar: argument 'other' expects Scalar, got str"), std::string::npos)
      << e;
}

TEST(Invoke, MultipleResultsAreTuples) {
  c10::IValue r = call_op("aten::max.dim", {at::tensor({1.0, 5.0, 2.0}), 0}, {});
  ASSERT_TRUE(r.isTuple());
  EXPECT_EQ(r.toTupleRef().elements()[1].toTensor().item<int64_t>(), 1);
}

TEST(Invoke, KernelErrorsPropagate) {
  EXPECT_THROW(call_op("aten::mm", {at::ones({2, 3}), at::ones({2, 3})}, {}), c10::Error);
}

}  // namespace
}  // namespace opsfuzz::suite
