// `ops-fuzz describe OP...`: a spec as its reader needs it. A family builder keeps a spec to one
// line (`binary("add.Tensor", {.alpha = true, .out = true})`), which says little until the
// builder is read; the description spells out what the builder made: each argument with its
// ArgType, flags and dependencies, every labelled rule grouped by attribute (the labels invalid
// samples carry), the joint constraints, the deviations with their commands, what lies outside
// the generation scope, and which configuration words reach which arguments.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "specs/model/spec.h"

namespace CLI {
class App;
}

namespace opsfuzz {

// The description of `spec`, lines ending in '\n'. Every label an invalid sample of the spec can
// carry (a Rule's, or an Unchecked one's under the contract configuration) stands alone on a
// line of it, after a space and followed by the end of the line or two spaces.
std::string describe_spec(const Spec& spec);

// Prints the description of each op (by name or by glob; every op when none is given), a blank
// line between two. An unknown op is a UsageError that suggests the closest names.
int describe_ops(const std::vector<std::string>& ops, const std::vector<std::string>& globs, std::ostream& out);

// Adds `describe` to the command line; the options live in the returned holder.
std::shared_ptr<void> add_describe_command(CLI::App& app, std::function<int()>& command, std::ostream& out);

}  // namespace opsfuzz
