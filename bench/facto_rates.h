// bench/facto-rates.tsv: FACTO's per-op figures on this machine class (reference data; see
// bench/README.md). Read by the FACTO comparison test and by generation_bench.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace opsfuzz {

struct FactoRates {
  std::string op;                  // "add.Tensor", as our SpecDB names it
  uint64_t tuples_per_round = 0;   // one ArgumentTupleGenerator(spec).gen() round
  double tuples_per_s = 0;         // valid generation, one thread
  uint64_t single = 0, pairs = 0;  // OPERA classes covered by that round
};

// The ops FACTO generates on libtorch 1.13; rows whose figures are missing (FACTO's spec fails,
// "error") are left out. Throws std::runtime_error when the file cannot be read or a row is
// malformed, naming the file and line.
inline std::vector<FactoRates> read_facto_rates(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<FactoRates> rows;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n == 1 || line.empty()) continue;  // the header
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '\t');) f.push_back(cell);
    if (f.size() >= 3 && f[2] == "error") continue;
    if (f.size() != 5) throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 5 columns");
    try {
      rows.push_back({f[0], std::stoull(f[1]), std::stod(f[2]), std::stoull(f[3]), std::stoull(f[4])});
    } catch (const std::logic_error&) { throw std::runtime_error(path + ":" + std::to_string(n) + ": not a number"); }
  }
  return rows;
}

}  // namespace opsfuzz
