#!/usr/bin/env bash
# The example consumer (examples/backend_suite) against opsfuzz installed to a fresh prefix: it
# builds, and its GoogleTest run shows passing tests, an XFAIL, an excluded target, a skipped
# unavailable target and the toy backend's real mismatch; names are stable, --gtest_filter picks
# one test, GoogleTest's shards split the tests, the fixture cache can be turned off, and the
# installed ops-fuzz loads the example's custom-op plugin.
#   example_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$1" || fail "$3 (no '$2' in $1)"; }
lacks() { ! grep -qF -- "$2" "$1" || fail "$3 ('$2' in $1)"; }
count() { grep -cF -- "$2" "$1" || true; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$source/examples/backend_suite" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
suite=$work/build/backend_suite
cd "$work"

echo "== names: stable, one per parametrization, excluded targets absent"
"$suite" --gtest_list_tests >list1.txt
"$suite" --gtest_list_tests >list2.txt
cmp -s list1.txt list2.txt || fail "two listings differ"
has list1.txt "SpecDB/add_Tensor." "SpecDB tests are listed"
has list1.txt "  valid_0001/toy_cpu" "one test per sample and target"
has list1.txt "  valid_0001/toy_gpu" "an unavailable target is still registered"
has list1.txt "Yaml/suite." "YAML tests are listed"
lacks list1.txt "torchscript_cpu" "an excluded target registers nothing"

echo "== a run"
status=0
"$suite" >run.txt 2>&1 || status=$?
[ "$status" = 1 ] || fail "the run should fail on the toy's mismatch (exit $status)"
has run.txt "[  FAILED  ] 1 test, listed below" "exactly one test fails"
has run.txt "[  FAILED  ] Yaml/suite.clamp_between/toy_cpu" "the toy's clamp mismatch is caught"
has run.txt "clamp_between on toy_cpu against eager_cpu: mismatch: output at [" "the mismatch reads"
has run.txt "distances: max_abs 1," "the distances are shown"
has run.txt "reproduce: ops-fuzz run" "a command reproduces it"
has run.txt "toy_cpu is not built into ops-fuzz: add --load LIB" "the command says what it needs"
has run.txt "XFAIL: the toy clamp's lower bound is off by one" "a known failure is an XFAIL"
has run.txt "[  SKIPPED ] SpecDB/clamp_default.valid_0002/toy_cpu" "an XFAIL is reported skipped"
has run.txt "XPASS: clamp.default valid sample 0" "an unexpected pass is noted"
has run.txt "target toy_gpu unavailable: no toy accelerator on this machine" "the skip says why"
has run.txt "[  SKIPPED ] SpecDB/add_Tensor.valid_0000/toy_gpu" "an unavailable target is skipped"
has run.txt "[       OK ] CustomOp.SpecAgreesWithTheRegisteredSchema" "the custom op's spec passes the schema check"
[ "$(count run.txt "[       OK ] SpecDB/opsfuzz_example__scaled_add_default.valid_")" = 8 ] ||
  fail "the custom op's valid samples are accepted"
[ "$(count run.txt "[       OK ] SpecDB/opsfuzz_example__scaled_add_default.invalid_")" = 8 ] ||
  fail "the custom op's invalid samples are refused"
[ "$(count run.txt "[       OK ] SpecDB/mul_Tensor.valid_seed5_")" = 4 ] ||
  fail "a test that changes its inputs in place leaves the next test's alone"
has run.txt "opsfuzz fixtures: 7 built, 7 released, 0 held" "one fixture per parameter set, released after use"

echo "== --gtest_filter runs exactly one test"
"$suite" --gtest_filter='SpecDB/add_Tensor.valid_0001/toy_cpu' >one.txt
[ "$(count one.txt "[ RUN      ]")" = 1 ] || fail "the filter should run one test"
has one.txt "[       OK ] SpecDB/add_Tensor.valid_0001/toy_cpu" "the filtered test passes"

echo "== GoogleTest's shards split the tests"
grep -F "[ RUN      ]" run.txt | sort >all.txt
for i in 0 1 2; do
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i "$suite" >"shard$i.txt" 2>&1 || true
  grep -F "[ RUN      ]" "shard$i.txt" >"runs$i.txt" || true
done
sort runs0.txt runs1.txt runs2.txt >union.txt
cmp -s all.txt union.txt || fail "the shards' union differs from the unsharded run"
[ -z "$(uniq -d union.txt)" ] || fail "shards overlap"
for i in 0 1 2; do [ -s "runs$i.txt" ] || fail "shard $i ran nothing"; done

echo "== OPSFUZZ_DISABLE_CACHE=1 builds fixtures per test"
OPSFUZZ_DISABLE_CACHE=1 "$suite" >nocache.txt 2>&1 || true
has nocache.txt "opsfuzz fixtures: 31 built" "each of the 31 tests that use a fixture builds its own"

echo "== the installed ops-fuzz loads the custom op's spec from the plugin"
ops_fuzz=("$work/prefix/bin/ops-fuzz" --load "$work/build/libcustom_op_plugin.so")
"${ops_fuzz[@]}" list-specs >specs.txt
has specs.txt "opsfuzz_example::scaled_add.default" "list-specs lists the plugin's spec"
"${ops_fuzz[@]}" sweep opsfuzz_example::scaled_add.default --max 200 >valid.txt ||
  fail "the custom op's valid samples are all accepted: $(cat valid.txt)"
"${ops_fuzz[@]}" sweep opsfuzz_example::scaled_add.default --invalid --max 200 >invalid.txt ||
  fail "the custom op's invalid samples are all refused: $(cat invalid.txt)"
"${ops_fuzz[@]}" run --ops 'opsfuzz_example::*' --max 20 --backends eager_cpu_fp64 --baseline eager_cpu \
  >run_custom.txt || fail "the custom op's samples run like SpecDB ones: $(cat run_custom.txt)"
has run_custom.txt "20 items, 0 failing" "the custom op's samples run like SpecDB ones"
echo "all checks passed"
