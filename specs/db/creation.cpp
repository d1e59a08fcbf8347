#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

void add_creation(std::vector<Spec>& db) {
  // full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None,
  //      Device? device=None, bool? pin_memory=None) -> Tensor
  db.push_back(Spec("full.default")
      .in(Shape("size")
            .value(Named("non-negative", Ge(0))))
      .in(Scalar("fill_value").deps(2)
            .value(fits_dtype([](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.is_none(2)) return std::nullopt;
              return std::get<c10::ScalarType>(c.meta(2).value);
            })))
      .kw(ScalarTypeOpt("dtype")));

  // _to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
  //          bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor
  db.push_back(Spec("_to_copy.default")
      .in(Tensor("self"))
      .kw(ScalarTypeOpt("dtype"))
      .kw(Bool("non_blocking"))
      .kw(MemoryFormatOpt("memory_format").deps(0)
            .value(Named("channels_last needs rank 4, channels_last_3d rank 5", In([](const Ctx& c) {
              std::vector<c10::MemoryFormat> ok{c10::MemoryFormat::Contiguous, c10::MemoryFormat::Preserve};
              if (c.rank(0) == 4) ok.push_back(c10::MemoryFormat::ChannelsLast);
              if (c.rank(0) == 5) ok.push_back(c10::MemoryFormat::ChannelsLast3d);
              return ok;
            })))));
}

}  // namespace opsfuzz::db
