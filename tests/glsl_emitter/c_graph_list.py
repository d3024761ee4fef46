"""c_graph_list.py SYNTH_CMAKELISTS SOURCE_DIR: the C target's graphs against the simulator, as
tests/synth/CMakeLists.txt lists them (every `synth_c_test(NAME GRAPH MODEL INPUT STEPS
INPUT...)` and the ENVIRONMENT its set_tests_properties gives), one per line:
NAME<TAB>ENV<TAB>GRAPH<TAB>MODEL<TAB>INPUT<TAB>STEPS<TAB>SPEC SPEC...
ENV is `embed`, `tolerance` or `-`. Read from the list itself so that graphs added there are
run (or reported as skips) here too, never silently left out."""
import re
import sys

text = open(sys.argv[1]).read()
src = sys.argv[2]
synth = src + "/tests/synth"
variables = {
    "OPENINFER_SOURCE_DIR": src,
    "CMAKE_CURRENT_SOURCE_DIR": synth,
    "_c": synth + "/c",
}
for name, value in re.findall(r"set\((_\w+) \$\{OPENINFER_SOURCE_DIR\}([^)\s]*)\)", text):
    variables[name] = src + value


def expand(word):
    return re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), m.group(0)), word)


# Drop comments, then take each call's arguments (no nested parentheses in these calls).
text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
env = {}
for names, value in re.findall(
    r"set_tests_properties\(([^)]*?)PROPERTIES\s+ENVIRONMENT\s+(\S+)\)", text
):
    for test in names.split():
        if test.startswith("synth_c_"):
            env[test[len("synth_c_"):]] = value
for args in re.findall(r"^\s*synth_c_test\(([^)]*)\)", text, re.M):
    words = [expand(w) for w in args.split()]
    if len(words) < 5:
        continue
    name, graph, model, inp, steps, *specs = words
    kind = {"SYNTH_EMBED=1": "embed", "SYNTH_TOLERANCE=1": "tolerance"}.get(env.get(name), "-")
    print("\t".join([name, kind, graph, model, inp, steps, " ".join(specs)]))
