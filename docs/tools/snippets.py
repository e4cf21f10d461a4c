#!/usr/bin/env python3
"""snippets.py OUT_DIR ROOT FILE.md... — the documentation's C++ blocks as
programs the test suite compiles and runs, so the docs cannot drift.

Each ```cpp block of a page becomes part of that page's test programs. What
a block is comes from a comment on the lines just before it,
`<!-- snippet: KIND [exit=N] -->` (Markdown renders nothing of it), or from
its text:

  program      a whole program (it has `int main(`): compiled, linked, run;
               it must exit with N (0 unless exit=N says otherwise); with
               `output`, the lines of simasio's reports in the page's next
               plain block (FAILED, shrunk, the replay line's settings, the
               summary's counts) must be among what it prints
  declarations code at namespace scope (the default): compiled
  body         statements: compiled inside a function with `simasio::world& w`
               (also named `world`) and `simasio::host& host` in scope
  boost-test   Boost.Test cases (SIMASIO_TEST_CASE, BOOST_AUTO_TEST_CASE):
               compiled into a test program of the page's and run
  gtest        GoogleTest tests (SIMASIO_TEST, TEST): likewise
  continue     more of the block before (a program or declarations shown in
               parts): joined to it

Every block sits in a namespace of its own (its #include lines moved above
it), so blocks of a page may reuse names. Writes OUT_DIR/<page>.cpp (plain
blocks, with a main() that runs each program in a child process),
OUT_DIR/<page>_boost_test.cpp, OUT_DIR/<page>_gtest.cpp, and
OUT_DIR/snippets.cmake, which lists them for CMake.
"""
import os
import re
import sys

DIRECTIVE = re.compile(r"<!--\s*snippet:\s*([a-z-]+)((?:\s+\w+(?:=\S+)?)*)\s*-->")
KINDS = {"program", "declarations", "body", "boost-test", "gtest", "continue"}


def blocks(path):
    """(line, kind, options, code) of each C++ block in the file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(cpp|c\+\+)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, indent = i, len(m.group(1))  # a block in a list item is indented
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            j += 1
        code = "\n".join(l[indent:] if l[:indent].strip() == "" else l for l in lines[start + 1:j])
        kind, options = None, {}
        k = start - 1
        while k >= 0 and k >= start - 3 and lines[k].strip() == "":
            k -= 1
        if k >= 0:
            d = DIRECTIVE.search(lines[k])
            if d:
                kind = d.group(1)
                if kind not in KINDS:
                    sys.exit(f"{path}:{k + 1}: unknown snippet kind '{kind}' (one of {', '.join(sorted(KINDS))})")
                for opt in d.group(2).split():
                    key, _, value = opt.partition("=")
                    options[key] = value
        if kind is None:
            if re.search(r"\bint\s+main\s*\(", code):
                kind = "program"
            elif re.search(r"\b(SIMASIO_TEST_CASE|BOOST_AUTO_TEST_CASE)\b", code):
                kind = "boost-test"
            elif re.search(r"\b(SIMASIO_TEST|TEST|TEST_F)\s*\(", code):
                kind = "gtest"
            else:
                kind = "declarations"
        # The program's output, as the page shows it: the next fence without a language.
        shown = None
        k = j + 1
        while k < len(lines) and lines[k].strip() == "":
            k += 1
        if k < len(lines) and lines[k].strip() == "```":
            end = k + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            shown = lines[k + 1:end]
        out.append((start + 1, kind, options, code, shown))
        i = j + 1
    return out


def expected_lines(shown):
    """What of a program's output the page shows must come out of it: the
    lines of simasio's reports that a seed decides (the FAILED line, the
    shrink counts, the replay line up to the program's path)."""
    out = []
    for line in shown or []:
        if line.startswith("simasio: FAILED"):
            out.append(line)
        elif line.startswith("simasio: shrunk:"):
            out.append(line.split("; tape: ", 1)[0] + "; tape: ")  # where tapes go is the reader's
        elif line.startswith("simasio: replay: "):
            out.append(line.split(" /", 1)[0] + " ")
        elif re.match(r"^simasio: [^:]+: [0-9]+ seeds? passed in ", line):
            out.append(line.split(" in ", 1)[0] + " in ")
        elif re.match(r"^simasio: [^:]+: seed [0-9]+ failed; ", line):
            out.append(line.split(" in ", 1)[0] + " in ")
    if shown is not None and not out:
        sys.exit("snippets.py: an 'output' program's next block shows none of simasio's report lines")
    return out


def cpp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_includes(code):
    inc, rest = [], []
    for line in code.split("\n"):
        (inc if re.match(r"^\s*#\s*include\b", line) else rest).append(line)
    return inc, "\n".join(rest)


PRELUDE = """// Generated by docs/tools/snippets.py from {source}: do not edit.
#include <simasio/simasio.hpp>
#include <simasio/asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
"""


def namespace_body(index, kind, code, source, line):
    inc, rest = split_includes(code)
    alias = "" if re.search(r"namespace\s+net\s*=", rest) else "namespace net = simasio::asio;\n"
    head = f"// {source}:{line}\nnamespace snippet_{index} {{\nusing namespace std::chrono_literals;\n{alias}"
    at = f'#line {line + 1} "{source}"\n'  # the compiler's messages name the page's lines
    if kind == "body":
        rest = ("[[maybe_unused]] void body([[maybe_unused]] simasio::world& w) {\n"
                "  [[maybe_unused]] simasio::world& world = w;\n"
                "  [[maybe_unused]] simasio::host& host = w.add_host(\"host\");\n" + at + rest + "\n}\n")
    else:
        rest = at + rest
    if kind == "program":
        rest = re.sub(r"\bint\s+main\s*\(", "int main_(", rest)
    return inc, head + rest + f"\n}}  // namespace snippet_{index}\n"


DRIVER = """
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>

namespace {
template <class F> int call(F f) {
  if constexpr (std::is_invocable_v<F>) return f();
  else {
    static char name[] = "snippet";
    static char* argv[] = {name, nullptr};
    return f(1, argv);
  }
}
// Each program in a process of its own: one's globals and exit are its own.
// What it writes on stderr is shown, and must hold the lines the page shows.
template <class F> bool run(const char* where, F f, int expected, std::vector<std::string> shown) {
  std::fflush(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) return false;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    ::close(fds[1]);
    int rc = 1;
    try { rc = call(f); } catch (const std::exception& e) { std::fprintf(stderr, "exception: %s\\n", e.what()); }
    std::fflush(nullptr);
    ::_exit(rc);
  }
  ::close(fds[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  std::fputs(err.c_str(), stderr);
  int status = 0;
  ::waitpid(pid, &status, 0);
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == expected;
  for (const std::string& line : shown) {
    if (err.find(line) != std::string::npos) continue;
    std::fprintf(stderr, "%s: the page shows '%s', the program did not print it\\n", where, line.c_str());
    ok = false;
  }
  std::fprintf(stderr, "%s: %s (exit %d, expected %d)\\n", ok ? "ok" : "FAILED", where,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1, expected);
  return ok;
}
}  // namespace

int main() {
  int failed = 0;
"""


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: snippets.py OUT_DIR ROOT FILE.md...")
    out_dir, root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    cmake = []
    total = 0
    for path in files:
        rel = os.path.relpath(path, root)
        page = re.sub(r"[^A-Za-z0-9]+", "_", os.path.splitext(rel)[0]).strip("_").lower()
        groups = {"plain": [], "boost-test": [], "gtest": []}
        merged = []
        for line, kind, options, code, shown in blocks(path):
            if kind == "continue":
                if not merged:
                    sys.exit(f"{rel}:{line}: a 'continue' block with no block before it")
                merged[-1][3] += "\n" + code
                merged[-1][2].update(options)
                merged[-1][4] = shown
                if re.search(r"\bint\s+main\s*\(", code):
                    merged[-1][1] = "program"
                continue
            merged.append([line, kind, options, code, shown])
        for index, (line, kind, options, code, shown) in enumerate(merged, 1):
            group = kind if kind in ("boost-test", "gtest") else "plain"
            groups[group].append((index, line, kind, options, code, expected_lines(shown) if "output" in options else []))
            total += 1
        for group, items in groups.items():
            if not items:
                continue
            includes, bodies, programs = [], [], []
            for index, line, kind, options, code, expect in items:
                inc, body = namespace_body(index, kind, code, rel, line)
                includes += [i for i in inc if i not in includes]
                bodies.append(body)
                if kind == "program":
                    programs.append((index, line, int(options.get("exit", "0")), expect))
            suffix = {"plain": "", "boost-test": "_boost_test", "gtest": "_gtest"}[group]
            name = f"{page}{suffix}"
            text = PRELUDE.format(source=rel)
            if group == "boost-test":
                text = f"#define BOOST_TEST_MODULE docs_{page}\n" + text
            text += "\n".join(includes) + "\n\n" + "\n".join(bodies)
            if group == "plain":
                text += DRIVER
                for index, line, expected, expect in programs:
                    shown = ", ".join(cpp_string(e) for e in expect)
                    text += f'  failed += run("{rel}:{line}", snippet_{index}::main_, {expected}, {{{shown}}}) ? 0 : 1;\n'
                text += f'  std::fprintf(stderr, "{rel}: {len(items)} block(s) compiled, {len(programs)} program(s) run, %d failed\\n", failed);\n'
                text += "  return failed == 0 ? 0 : 1;\n}\n"
            dest = os.path.join(out_dir, name + ".cpp")
            old = open(dest, encoding="utf-8").read() if os.path.exists(dest) else None
            if old != text:
                with open(dest, "w", encoding="utf-8") as fh:
                    fh.write(text)
            cmake.append(f"simasio_doc_snippets({name} {group} \"{dest}\")")
    text = "# Generated by docs/tools/snippets.py: do not edit.\n" + "\n".join(cmake) + "\n"
    dest = os.path.join(out_dir, "snippets.cmake")
    old = open(dest, encoding="utf-8").read() if os.path.exists(dest) else None
    if old != text:
        with open(dest, "w", encoding="utf-8") as fh:
            fh.write(text)
    print(f"snippets: {total} C++ block(s) from {len(files)} page(s)")


if __name__ == "__main__":
    main()
