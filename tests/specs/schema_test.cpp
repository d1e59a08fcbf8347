// Every spec of the SpecDB agrees with the FunctionSchema of its op in the linked libtorch; the
// check catches a wrong name, a missing argument and a keyword-only argument given as positional.
#include "specs/db/db.h"
#include "specs/model/relations.h"
#include "specs/model/schema_check.h"
#include "opcall/opcall.h"

#include <gtest/gtest.h>

namespace opsfuzz {
namespace {
using namespace dsl;

// "add.Tensor" -> aten::add.Tensor; "x.default" -> aten::x. Looked up as the sweep calls ops:
// dispatcher operators, then those of TorchScript only (aten::sym_size.int).
const c10::FunctionSchema* schema_of(const std::string& op, bool out = false) {
  auto dot = op.find('.');
  std::string overload = out                                                           ? "out"
                         : dot == std::string::npos || op.substr(dot + 1) == "default" ? ""
                                                                                       : op.substr(dot + 1);
  std::string name = "aten::" + op.substr(0, dot) + (overload.empty() ? "" : "." + overload);
  try {
    return &opcall::find_op(name).schema();
  } catch (const opcall::LookupError&) { return nullptr; }
}

std::vector<std::string> mismatches(const Spec& spec) {
  const auto* schema = schema_of(spec.op());
  if (!schema) return {spec.op() + ": no such operator in this libtorch"};
  return schema_mismatches(spec, *schema, schema_of(spec.op(), true));
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& m : v) s += m + "\n";
  return s;
}

TEST(SchemaCheck, EverySpecAgreesWithItsSchema) {
  for (const auto& spec : spec_db()) EXPECT_TRUE(mismatches(spec).empty()) << joined(mismatches(spec));
}

TEST(SchemaCheck, WrongNameIsCaught) {
  Spec s("index_select.default");
  s.in(Tensor("self")).in(Dim("dimension")).in(Tensor("index"));
  EXPECT_EQ(joined(mismatches(s)),
            "index_select.default against aten::index_select: the spec's argument 'dimension' is not in the schema\n"
            "index_select.default against aten::index_select: argument 'dim' (int) is missing from the spec\n");
}

TEST(SchemaCheck, MissingArgumentIsCaught) {
  Spec s("index_select.default");
  s.in(Tensor("self")).in(Tensor("index"));
  EXPECT_EQ(joined(mismatches(s)),
            "index_select.default against aten::index_select: argument 'dim' (int) is missing from the spec\n");
  Spec defaulted("add.Tensor");  // alpha has a default: leaving it out is allowed
  defaulted.in(Tensor("self")).in(Tensor("other"));
  EXPECT_TRUE(mismatches(defaulted).empty()) << joined(mismatches(defaulted));
}

TEST(SchemaCheck, KeywordOnlyGivenAsPositionalIsCaught) {
  Spec s("add.Tensor");
  s.in(Tensor("self")).in(Tensor("other")).in(Scalar("alpha"));
  EXPECT_EQ(
      joined(mismatches(s)),
      "add.Tensor against aten::add.Tensor: argument 'alpha' is keyword-only in the schema but positional in the spec\n");
}

TEST(SchemaCheck, KindsOptionalityAndOrderAreCaught) {
  Spec kind("index_select.default");
  kind.in(Tensor("self")).in(Bool("dim")).in(Tensor("index"));
  EXPECT_EQ(
      joined(mismatches(kind)),
      "index_select.default against aten::index_select: argument 'dim' is Bool in the spec (bool) but int in the schema\n");
  Spec optional("clamp.default");
  optional.in(Tensor("self")).in(Scalar("min")).in(ScalarOpt("max"));
  EXPECT_EQ(
      joined(mismatches(optional)),
      "clamp.default against aten::clamp: argument 'min' is optional in the schema (Scalar?) but Scalar in the spec\n");
  Spec order("index_select.default");
  order.in(Tensor("self")).in(Tensor("index")).in(Dim("dim"));
  EXPECT_EQ(
      joined(mismatches(order)),
      "index_select.default against aten::index_select: argument 'dim' comes later in the spec than in the schema\n");
}

TEST(SchemaCheck, FloatBoolAndOptionalLengthListKinds) {
  Spec ok("upsample_nearest1d.vec");
  ok.in(Tensor("input")).in(LengthListOpt("output_size")).in(FloatListOpt("scale_factors"));
  EXPECT_EQ(joined(mismatches(ok)), "");
  Spec bad("upsample_nearest1d.vec");
  bad.in(Tensor("input")).in(LengthList("output_size")).in(BoolList("scale_factors"));
  EXPECT_EQ(joined(mismatches(bad)),
            "upsample_nearest1d.vec against aten::upsample_nearest1d.vec: argument 'output_size' is optional in the "
            "schema (int[]?) but LengthList in the spec\n"
            "upsample_nearest1d.vec against aten::upsample_nearest1d.vec: argument 'scale_factors' is BoolList in the "
            "spec (bool[]) but float[]? in the schema\n");
}

TEST(SchemaCheck, LayoutAndDeviceKinds) {
  Spec ok("zeros.default");
  ok.in(Shape("size"))
      .kw(ScalarTypeOpt("dtype"))
      .kw(LayoutOpt("layout"))
      .kw(DeviceOpt("device"))
      .kw(BoolOpt("pin_memory"));
  EXPECT_EQ(joined(mismatches(ok)), "");
  Spec swapped("zeros.default");
  swapped.in(Shape("size")).kw(ScalarTypeOpt("dtype")).kw(DeviceOpt("layout")).kw(Layout("device"));
  EXPECT_EQ(
      joined(mismatches(swapped)),
      "zeros.default against aten::zeros: argument 'layout' is DeviceOpt in the spec (Device?) but int? in the schema\n"
      "zeros.default against aten::zeros: argument 'device' is Layout in the spec (Layout) but Device? in the schema\n");
}

TEST(SchemaCheck, OutArgumentsAreCheckedAgainstTheOutOverload) {
  Spec s("add.Tensor");
  s.in(Tensor("self")).in(Tensor("other")).kw(Scalar("alpha")).out(Tensor("result"));
  EXPECT_EQ(joined(mismatches(s)),
            "add.Tensor against aten::add.out: the spec's argument 'result' is not in the schema\n"
            "add.Tensor against aten::add.out: argument 'out' (Tensor) is missing from the spec\n");
}

}  // namespace
}  // namespace opsfuzz
