// The SpecDB's dtypes against PyTorch's own declarations: for every op an OpInfo of PyTorch 1.13
// covers (specs/db/opinfo_dtypes.tsv, written by tools/opinfo_dtypes.py), every CPU dtype the
// OpInfos declare must be generated: in some tensor argument (or ScalarType argument) of the
// spec's valid samples under the configurations that choose dtypes (default, half, complex, each
// with and without the contract, where deviations are generated). A declared dtype that is not is
// a difference, unless a reason below says why the declaration does not apply. The table of
// differences and exceptions is printed on every run.
#include "argtypes/text.h"
#include "generators/generators.h"
#include "specs/db/db.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace opsfuzz {
namespace {

// Declared dtypes that opsfuzz does not generate, with the reason, for every op.
const std::map<std::string, std::string> kNotGenerated = {
    {"complex32",
     "ComplexHalf is outside the dtypes opsfuzz generates: libtorch 1.13 calls its support experimental "
     "(\"ComplexHalf support is experimental and many operators don't support it yet\")"},
};

const char* const kConfigs[] = {"", "half", "complex", "contract", "contract,half", "contract,complex"};
constexpr uint64_t kSamplesPerConfig = 150;

// op -> the union of the dtypes its OpInfos declare.
std::map<std::string, std::set<std::string>> declared_dtypes() {
  std::ifstream in(OPSFUZZ_OPINFO_DTYPES);
  EXPECT_TRUE(in) << "cannot read " << OPSFUZZ_OPINFO_DTYPES;
  std::map<std::string, std::set<std::string>> out;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (std::exchange(header, false)) continue;  // op, opinfo, match, cpu_dtypes
    std::istringstream fields(line);
    std::string op, opinfo, match, dtypes, dtype;
    std::getline(fields, op, '\t'), std::getline(fields, opinfo, '\t'), std::getline(fields, match, '\t');
    std::getline(fields, dtypes, '\t');
    std::istringstream list(dtypes);
    while (std::getline(list, dtype, ',')) out[op].insert(dtype);
  }
  return out;
}

// The dtypes of every tensor argument (and the values of ScalarType arguments) of the spec's valid
// samples under kConfigs.
std::set<std::string> generated_dtypes(const Spec& spec) {
  std::set<std::string> out;
  for (const char* words : kConfigs) {
    ArgumentTupleGenerator gen(spec, Config::parse(words), 0, Validity::Valid);
    Sample s;
    for (uint64_t n = 0; n < kSamplesPerConfig && gen.next(s); ++n)
      for (const MetaArg& m : s.metas) {
        if (m.none) continue;
        if (is_scalar_type(m.argtype)) out.insert(std::string(name(std::get<c10::ScalarType>(m.value))));
        for (const TensorMeta& t : m.tensors)
          if (!t.none) out.insert(std::string(name(t.dtype)));
      }
  }
  return out;
}

TEST(OpInfoDtypes, EveryDeclaredCpuDtypeIsGenerated) {
  const auto declared = declared_dtypes();
  ASSERT_FALSE(declared.empty());
  std::ostringstream table;
  size_t ops = 0, differences = 0, excused = 0;
  for (const auto& [op, dtypes] : declared) {
    const Spec* spec = find_spec(op);
    ASSERT_NE(spec, nullptr) << op << " is in " << OPSFUZZ_OPINFO_DTYPES
                             << " but not in the SpecDB: run tools/opinfo_dtypes.py again";
    ++ops;
    const std::set<std::string> generated = generated_dtypes(*spec);
    std::set<std::string> missing, reasoned;
    for (const std::string& d : dtypes)
      if (!generated.contains(d)) (kNotGenerated.contains(d) ? reasoned : missing).insert(d);
    if (!missing.empty()) table << "  " << op << ": NOT GENERATED: " << join(missing) << "\n";
    if (!reasoned.empty()) table << "  " << op << ": not generated, with a reason: " << join(reasoned) << "\n";
    differences += !missing.empty(), excused += !reasoned.empty();
    EXPECT_TRUE(missing.empty()) << op << " does not generate " << join(missing) << ", which PyTorch declares";
  }
  std::cout << ops << " ops with an OpInfo; " << differences << " with a declared dtype not generated, " << excused
            << " with one not generated for a reason:\n"
            << table.str() << "reasons:\n";
  for (const auto& [dtype, reason] : kNotGenerated) std::cout << "  " << dtype << ": " << reason << "\n";
}

}  // namespace
}  // namespace opsfuzz
