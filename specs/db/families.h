// The op-family files of the SpecDB; each adds its specs to the list.
#pragma once

#include "specs/model/relations.h"

namespace opsfuzz::db {
void add_binary(std::vector<Spec>& db);
void add_unary(std::vector<Spec>& db);
void add_reduction(std::vector<Spec>& db);
void add_shape(std::vector<Spec>& db);
void add_indexing(std::vector<Spec>& db);
void add_conv_pool(std::vector<Spec>& db);
void add_norm(std::vector<Spec>& db);
void add_creation(std::vector<Spec>& db);
}  // namespace opsfuzz::db
