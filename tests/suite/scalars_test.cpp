// YAML 1.1 scalar resolution (as PyYAML does it) and Python rendering of values.
#include <gtest/gtest.h>

#include <cmath>

#include "suite/diagnostics.h"
#include "suite/loader.h"
#include "suite/value.h"

namespace opsfuzz::suite {
namespace {

// The value of `v: TEXT` as the loader reads it.
YamlValue scalar(const std::string& text) {
  Diagnostics d;
  YamlValue doc = parse_yaml("v: " + text + "\n", "s.yaml", d);
  EXPECT_FALSE(d.has_errors()) << d.str();
  return *doc.find("v");
}

struct Case {
  const char* text;
  YamlValue::Kind kind;
  const char* python_str;  // str() of the value PyYAML gives
};

TEST(Scalars, ResolvedAsPyYamlResolvesThem) {
  using K = YamlValue::Kind;
  // Expectations taken from PyYAML 6 (yaml.safe_load) on the same texts.
  const Case cases[] = {
      {"true", K::Bool, "True"},
      {"True", K::Bool, "True"},
      {"TRUE", K::Bool, "True"},
      {"yes", K::Bool, "True"},
      {"Yes", K::Bool, "True"},
      {"NO", K::Bool, "False"},
      {"on", K::Bool, "True"},
      {"Off", K::Bool, "False"},
      {"y", K::String, "y"},
      {"n", K::String, "n"},
      {"~", K::Null, "None"},
      {"null", K::Null, "None"},
      {"Null", K::Null, "None"},
      {"NULL", K::Null, "None"},
      {"", K::Null, "None"},
      {"1_000", K::Int, "1000"},
      {"0x1F", K::Int, "31"},
      {"0b101", K::Int, "5"},
      {"017", K::Int, "15"},
      {"09", K::String, "09"},
      {"0o17", K::String, "0o17"},
      {"1:30", K::Int, "90"},
      {"-1:30", K::Int, "-90"},
      {"+12", K::Int, "12"},
      {"-0", K::Int, "0"},
      {"1.5e+3", K::Float, "1500.0"},
      {"1.0E+2", K::Float, "100.0"},
      {"1.", K::Float, "1.0"},
      {".5", K::Float, "0.5"},
      {"-.5", K::String, "-.5"},
      {"1e5", K::String, "1e5"},
      {"1.5e3", K::String, "1.5e3"},
      {"1e-5", K::String, "1e-5"},
      {".inf", K::Float, "inf"},
      {"-.inf", K::Float, "-inf"},
      {"+.inf", K::Float, "inf"},
      {".nan", K::Float, "nan"},
      {".NaN", K::Float, "nan"},
      {".NAN", K::Float, "nan"},
      {"NaN", K::String, "NaN"},
      {"1_0.5", K::Float, "10.5"},
      {"190:20:30.15", K::Float, "685230.15"},
      {"-0.0", K::Float, "-0.0"},
      {"0.00001", K::Float, "1e-05"},
      {"100000.0", K::Float, "100000.0"},
      {"1.0e+16", K::Float, "1e+16"},
      {"12345678901234567.0", K::Float, "1.2345678901234568e+16"},
      {"abc", K::String, "abc"},
      {"1,2", K::String, "1,2"},
  };
  for (const auto& c : cases) {
    YamlValue v = scalar(c.text);
    EXPECT_EQ(v.kind, c.kind) << c.text;
    EXPECT_EQ(python_str(v), c.python_str) << c.text;
  }
}

TEST(Scalars, QuotedScalarsAreAlwaysStrings) {
  for (const char* text : {"\"true\"", "'1'", "\"N\"", "'~'", "\"1.5\"", "!!str 5"}) {
    YamlValue v = scalar(text);
    EXPECT_TRUE(v.is_string()) << text;
    EXPECT_TRUE(v.quoted) << text;
    EXPECT_FALSE(v.is_symbol()) << text;
  }
  EXPECT_TRUE(scalar("N").is_symbol());
  EXPECT_EQ(scalar("\"true\"").s, "true");
}

TEST(Scalars, PositionsAreOneBased) {
  Diagnostics d;
  YamlValue doc = parse_yaml("a:\n  b: [1,  x]\n", "p.yaml", d);
  const YamlValue& list = *doc.find("a")->find("b");
  EXPECT_EQ(list.items[1].pos.line, 2);
  EXPECT_EQ(list.items[1].pos.column, 11);
  EXPECT_EQ(list.items[1].pos.str(), "p.yaml:2:11");
}

TEST(Scalars, SyntaxErrorsArePositioned) {
  Diagnostics d;
  parse_yaml("a: [1, 2\nb: 3\n", "bad.yaml", d);
  ASSERT_TRUE(d.has_errors());
  EXPECT_NE(d.str().find("bad.yaml:"), std::string::npos) << d.str();
  EXPECT_NE(d.str().find("YAML syntax error"), std::string::npos) << d.str();
}

// Suites are UTF-8: other bytes are named where they are, before YAML reads them (read as YAML
// reads them, the first four of "d\0\0\0" are UTF-32 and no later error names a place in the file).
TEST(Scalars, BytesThatAreNotUtf8TextAreNamedWhereTheyAre) {
  auto first_error = [](const std::string& text) {
    Diagnostics d;
    parse_yaml(text, "t.yaml", d);
    return d.errors().empty() ? std::string() : d.errors().front().str();
  };
  EXPECT_EQ(first_error(std::string("d\0\0\0. {N: 5}\n", 14)),
            "t.yaml:1:2: error: a control character (U+0000), which YAML does not allow");
  EXPECT_EQ(first_error("tests:\n  - op: \"x\xff\"\n"),
            "t.yaml:2:11: error: a byte that is not UTF-8 (suites are UTF-8 text)");
  EXPECT_EQ(first_error("a: \xc0\xaf\n"),
            "t.yaml:1:4: error: a byte that is not UTF-8 (suites are UTF-8 text)");  // overlong
  EXPECT_EQ(first_error("a: 1\n\x1b[0m\n"),
            "t.yaml:2:1: error: a control character (U+001B), which YAML does not allow");
  // A byte order mark, tabs, carriage returns and characters beyond ASCII are text.
  EXPECT_EQ(first_error("\xEF\xBB\xBF"
                        "a: \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\r\nb:\t1\n"),
            "");
}

TEST(Scalars, MergeKeysAndDuplicateKeys) {
  Diagnostics d;
  YamlValue doc = parse_yaml("base: &b {x: 1, y: 2}\nm: {<<: *b, y: 3}\n", "m.yaml", d);
  EXPECT_FALSE(d.has_errors()) << d.str();
  EXPECT_EQ(doc.find("m")->find("x")->i, 1);
  EXPECT_EQ(doc.find("m")->find("y")->i, 3);  // explicit keys win
  Diagnostics dup;                            // the last value wins, at the first key's place, as PyYAML reads it
  YamlValue twice = parse_yaml("a: 1\nb: 0\na: 2\n", "d.yaml", dup);
  EXPECT_FALSE(dup.has_errors());
  EXPECT_NE(dup.str().find("d.yaml:3:1: warning: duplicate key 'a' (first at line 1): the last value is used"),
            std::string::npos)
      << dup.str();
  ASSERT_EQ(twice.entries.size(), 2u);
  EXPECT_EQ(python_str(twice.entries[0].first), "a");
  EXPECT_EQ(twice.find("a")->i, 2);
}

TEST(PythonRendering, FloatsAsPythonRepr) {
  EXPECT_EQ(python_float(0.5), "0.5");
  EXPECT_EQ(python_float(1e-05), "1e-05");
  EXPECT_EQ(python_float(0.0001), "0.0001");
  EXPECT_EQ(python_float(100000.0), "100000.0");
  EXPECT_EQ(python_float(1e16), "1e+16");
  EXPECT_EQ(python_float(123456789012345.6), "123456789012345.6");
  EXPECT_EQ(python_float(-0.0), "-0.0");
  EXPECT_EQ(python_float(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(python_float(1.5e300), "1.5e+300");
  EXPECT_EQ(python_float(INFINITY), "inf");
  EXPECT_EQ(python_float(NAN), "nan");
}

TEST(PythonRendering, ListsAndMappingsAsReprs) {
  Diagnostics d;
  YamlValue doc = parse_yaml("v: [1, a, \"it's\", true, ~, 2.5, {k: v}]\n", "r.yaml", d);
  EXPECT_EQ(python_str(*doc.find("v")), "[1, 'a', \"it's\", True, None, 2.5, {'k': 'v'}]");
}

TEST(PythonRendering, EqualityFollowsPython) {
  EXPECT_TRUE(python_equal(YamlValue::integer(3), YamlValue::floating(3.0)));
  EXPECT_TRUE(python_equal(YamlValue::boolean(true), YamlValue::integer(1)));
  EXPECT_FALSE(python_equal(YamlValue::string("3"), YamlValue::integer(3)));
  Diagnostics d;
  YamlValue a = parse_yaml("{x: 1, y: [1, 2]}", "a", d), b = parse_yaml("{y: [1, 2.0], x: 1}", "b", d);
  EXPECT_TRUE(python_equal(a, b));
}

TEST(PythonRendering, NumericStrings) {
  EXPECT_EQ(parse_numeric_string("10")->i, 10);
  EXPECT_TRUE(parse_numeric_string("10")->is_int());
  EXPECT_EQ(parse_numeric_string("1e5")->f, 100000.0);
  EXPECT_EQ(parse_numeric_string(" -2.5 ")->f, -2.5);
  EXPECT_FALSE(parse_numeric_string("N"));
  EXPECT_FALSE(parse_numeric_string("0x10"));
}

TEST(Suggestions, ClosestCandidate) {
  std::vector<std::string> keys = {"shape", "dtype", "kind", "init"};
  using Names = std::vector<std::string>;
  EXPECT_EQ(closest("shpe", keys), Names{"shape"});
  EXPECT_EQ(closest("dtpye", keys), Names{"dtype"});
  EXPECT_EQ(closest("completely_else", keys), Names{});
  EXPECT_EQ(did_you_mean("knd", keys), " (did you mean 'kind'?)");
}

}  // namespace
}  // namespace opsfuzz::suite
