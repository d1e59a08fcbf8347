#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {

// full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None,
//      Device? device=None, bool? pin_memory=None) -> Tensor
Spec full() {
  return Spec("full.default")
      .in(Shape("size")
            .value(Ge(0)))
      .in(Scalar("fill_value").deps("dtype")
            .value(fits_dtype("dtype", [](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.is_none("dtype")) return std::nullopt;
              return std::get<c10::ScalarType>(c.meta("dtype").value);
            })))
      .kw(ScalarTypeOpt("dtype"));
}

// _to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
//          bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor
Spec to_copy() {
  return Spec("_to_copy.default")
      .in(Tensor("self"))
      .kw(ScalarTypeOpt("dtype"))
      .kw(Bool("non_blocking"))
      .kw(MemoryFormatOpt("memory_format").deps("self")
            .value(In("{contiguous, preserve}, channels_last for rank 4, channels_last_3d for rank 5", [](const Ctx& c) {
              std::vector<c10::MemoryFormat> ok{c10::MemoryFormat::Contiguous, c10::MemoryFormat::Preserve};
              if (c.rank("self") == 4) ok.push_back(c10::MemoryFormat::ChannelsLast);
              if (c.rank("self") == 5) ok.push_back(c10::MemoryFormat::ChannelsLast3d);
              return ok;
            })));
}

}  // namespace

std::span<const SpecFn> creation_specs() {
  static constexpr SpecFn table[] = {full, to_copy};
  return table;
}

}  // namespace opsfuzz::db
