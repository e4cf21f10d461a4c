#!/usr/bin/env python3
"""gen_probes.py — the Asio 1.81 member audit, generated from Boost's headers.

    gen_probes.py --clang clang++ --include /usr/include --out probes.hpp

Asks clang for the syntax tree (-ast-dump=json) of every Asio class and free
function simasio replaces, and writes one probe per public member: for a
member function (each overload, each number of arguments its defaults
allow), "this call, with arguments of Asio's parameter types, compiles";
for a member type, enumerator or static constant, "this name exists". Each
probe is a variable template instantiated twice: on Asio's own type (with
Asio's io_context, executor and sockets) and on simasio's (with simasio's),
so a probe that does not compile on Asio itself (an overload Asio declares
but nobody can call) is seen as such, not counted against simasio.
Deprecated members are included: the tree is Asio's as a program sees it
without BOOST_ASIO_NO_DEPRECATED. Return types are not compared.
"""

import argparse
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# ---------------------------------------------------------------------------
# What is audited. Each audit: a name, the Asio classes whose members it
# probes (a class and its bases, most derived first), Asio's type (A), the
# type in simasio::asio (S), and what the class templates' parameters are.

TCP = "boost::asio::ip::tcp"
UDP = "boost::asio::ip::udp"
AUDITS = [
    ("io_context", ["boost::asio::io_context", "boost::asio::execution_context"],
     "boost::asio::io_context", "simasio::asio::io_context", {}),
    ("io_context::executor_type", ["boost::asio::io_context::basic_executor_type"],
     "boost::asio::io_context::executor_type", "simasio::asio::io_context::executor_type",
     {"Allocator": "std::allocator<void>", "Bits": "0"}),
    ("io_context::strand", ["boost::asio::io_context::strand"],
     "boost::asio::io_context::strand", "simasio::asio::io_context::strand", {}),
    ("io_context::work", ["boost::asio::io_context::work"],
     "boost::asio::io_context::work", "simasio::asio::io_context::work", {}),
    ("steady_timer", ["boost::asio::basic_waitable_timer"],
     "boost::asio::steady_timer", "simasio::asio::steady_timer",
     {"Clock": "std::chrono::steady_clock", "WaitTraits": "boost::asio::wait_traits<std::chrono::steady_clock>",
      "Executor": "typename X::executor"}),
    ("deadline_timer", ["boost::asio::basic_deadline_timer"],
     "boost::asio::deadline_timer", "simasio::asio::deadline_timer",
     {"Time": "boost::posix_time::ptime", "TimeTraits": "boost::asio::time_traits<boost::posix_time::ptime>",
      "Executor": "typename X::executor"}),
    ("ip::tcp::socket", ["boost::asio::basic_stream_socket", "boost::asio::basic_socket", "boost::asio::socket_base"],
     "boost::asio::ip::tcp::socket", "simasio::asio::ip::tcp::socket",
     {"Protocol": TCP, "Executor": "typename X::executor"}),
    ("ip::tcp::acceptor", ["boost::asio::basic_socket_acceptor", "boost::asio::socket_base"],
     "boost::asio::ip::tcp::acceptor", "simasio::asio::ip::tcp::acceptor",
     {"Protocol": TCP, "Executor": "typename X::executor"}),
    ("ip::udp::socket", ["boost::asio::basic_datagram_socket", "boost::asio::basic_socket", "boost::asio::socket_base"],
     "boost::asio::ip::udp::socket", "simasio::asio::ip::udp::socket",
     {"Protocol": UDP, "Executor": "typename X::executor"}),
    ("ip::tcp::resolver", ["boost::asio::ip::basic_resolver", "boost::asio::ip::resolver_base"],
     "boost::asio::ip::tcp::resolver", "simasio::asio::ip::tcp::resolver",
     {"InternetProtocol": TCP, "Executor": "typename X::executor"}),
    ("ip::udp::resolver", ["boost::asio::ip::basic_resolver", "boost::asio::ip::resolver_base"],
     "boost::asio::ip::udp::resolver", "simasio::asio::ip::udp::resolver",
     {"InternetProtocol": UDP, "Executor": "typename X::executor"}),
    ("ip::tcp", ["boost::asio::ip::tcp"], "boost::asio::ip::tcp", "simasio::asio::ip::tcp", {}),
    ("ip::udp", ["boost::asio::ip::udp"], "boost::asio::ip::udp", "simasio::asio::ip::udp", {}),
    ("signal_set", ["boost::asio::basic_signal_set"],
     "boost::asio::signal_set", "simasio::asio::signal_set", {"Executor": "typename X::executor"}),
    ("posix::stream_descriptor", ["boost::asio::posix::basic_stream_descriptor", "boost::asio::posix::basic_descriptor",
                                  "boost::asio::posix::descriptor_base"],
     "boost::asio::posix::stream_descriptor", "simasio::asio::posix::stream_descriptor",
     {"Executor": "typename X::executor"}),
]
# Free functions: their first parameter (a socket) is the audit's socket.
FREE = [
    ("connect", "boost::asio::connect", "boost::asio::connect", "simasio::asio::connect",
     {"Protocol": TCP, "Executor": "typename X::executor"}),
    ("async_connect", "boost::asio::async_connect", "boost::asio::async_connect", "simasio::asio::async_connect",
     {"Protocol": TCP, "Executor": "typename X::executor"}),
]

# Function templates' parameters, by name: what a probe passes for them.
TEMPLATE_ARGS = {
    "ExecutionContext": "typename X::context",
    "Executor1": "typename X::executor",
    "Protocol1": None,  # the audit's protocol
    "MutableBufferSequence": "boost::asio::mutable_buffer",
    "ConstBufferSequence": "boost::asio::const_buffer",
    "SettableSocketOption": "boost::asio::socket_base::reuse_address",
    "GettableSocketOption": "boost::asio::socket_base::reuse_address",
    "IoControlCommand": "boost::asio::socket_base::bytes_readable",
    "EndpointSequence": "boost::asio::ip::tcp::resolver::results_type",
    "Iterator": "boost::asio::ip::tcp::resolver::results_type::iterator",
    "ConnectCondition": "simasio_surface::connect_condition",
    "Rep": "long", "Period": "std::milli",
    "Clock": "std::chrono::steady_clock", "Duration": "std::chrono::steady_clock::duration",
    "Function": "simasio_surface::any_handler",
    "OtherAllocator": "std::allocator<void>",
    "Allocator": "std::allocator<void>",
}
TOKEN = re.compile(r"^\w*(Token|Handler)$")
ANY_HANDLER = "simasio_surface::any_handler"


# Names dumped together: every declaration whose qualified name starts so.
GROUPS = ("boost::asio::basic_", "boost::asio::io_context", "boost::asio::ip::", "boost::asio::posix::")


def dump(clang, include, name):
    """The syntax tree of every declaration whose qualified name contains name."""
    src = ("#include <boost/asio.hpp>\n#include <boost/asio/deadline_timer.hpp>\n"
           "#include <boost/asio/io_context_strand.hpp>\n")
    cmd = [clang, "-std=c++20", "-x", "c++", "-fsyntax-only", "-I", include, "-Xclang", "-ast-dump=json",
           "-Xclang", "-ast-dump-filter=" + name, "-"]
    out = subprocess.run(cmd, input=src, capture_output=True, text=True, check=True).stdout
    objs, i, dec = [], 0, json.JSONDecoder()
    while True:
        while i < len(out) and out[i].isspace():
            i += 1
        if i >= len(out):
            return objs
        o, i = dec.raw_decode(out, i)
        objs.append(o)


def definition(objs, qualified):
    """The class (template) named exactly `qualified`, with its members."""
    short = qualified.split("::")[-1]
    for o in objs:
        rec = o
        if o["kind"] == "ClassTemplateDecl":
            recs = [c for c in o.get("inner", []) if c["kind"] == "CXXRecordDecl"]
            rec = recs[0] if recs else None
        if rec and rec.get("kind") == "CXXRecordDecl" and rec.get("name") == short and rec.get("completeDefinition"):
            return o, rec
    sys.exit("gen_probes: no definition of %s in clang's tree" % qualified)


def tparams(node):
    return [x for x in node.get("inner", []) if x["kind"] in ("TemplateTypeParmDecl", "NonTypeTemplateParmDecl", "TemplateTemplateParmDecl")]


class Member:
    def __init__(self, kind, name, params, const, static, tnames):
        self.kind, self.name, self.params = kind, name, params
        self.const, self.static, self.tnames = const, static, tnames


def members(rec):
    """Public members of rec: functions (Member) and names (str)."""
    access = "public" if rec.get("tagUsed") == "struct" else "private"
    funcs, names = [], []
    for m in rec.get("inner", []):
        k = m["kind"]
        if k == "AccessSpecDecl":
            access = m["access"]
            continue
        if access != "public" or m.get("isImplicit"):
            continue
        if k in ("TypedefDecl", "TypeAliasDecl", "CXXRecordDecl", "EnumDecl"):
            if m.get("name"):
                names.append(("type", m["name"]))
            if k == "EnumDecl" and not m.get("scopedEnumTag"):
                names += [("value", e["name"]) for e in m.get("inner", []) if e["kind"] == "EnumConstantDecl"]
        elif k == "VarDecl":
            names.append(("value", m["name"]))
        elif k == "ClassTemplateDecl":
            names.append(("template", m["name"]))
        elif k in ("CXXMethodDecl", "CXXConstructorDecl") or k == "FunctionTemplateDecl":
            fn, tn = m, []
            if k == "FunctionTemplateDecl":
                fns = [x for x in m["inner"] if x["kind"] in ("CXXMethodDecl", "CXXConstructorDecl")]
                if not fns:
                    continue
                fn, tn = fns[0], [t.get("name") for t in tparams(m)]
            if fn.get("explicitlyDeleted"):
                continue
            params = [(p["type"]["qualType"], "init" in p) for p in fn.get("inner", []) if p["kind"] == "ParmVarDecl"]
            sig = fn["type"]["qualType"]
            const = bool(re.search(r"\)\s*const(\s|&|$)", sig))
            funcs.append(Member("ctor" if fn["kind"] == "CXXConstructorDecl" else "method", fn["name"], params,
                                const, fn.get("storageClass") == "static", tn))
    return funcs, names


def free_functions(objs, qualified):
    short = qualified.split("::")[-1]
    out = []
    for o in objs:
        if o["kind"] == "FunctionTemplateDecl" and o.get("name") == short:
            fns = [x for x in o["inner"] if x["kind"] == "FunctionDecl"]
            if fns and not fns[0].get("isImplicit"):
                params = [(p["type"]["qualType"], "init" in p) for p in fns[0].get("inner", []) if p["kind"] == "ParmVarDecl"]
                out.append(Member("free", short, params, False, False, [t.get("name") for t in tparams(o)]))
    return out


IDENT = re.compile(r"(::\s*)?\b([A-Za-z_]\w*)\b")


def rewrite(t, classes, member_types, class_args, tnames, protocol):
    """A parameter's type as Asio wrote it, as the probe spells it; None if unknown."""
    for c in classes:  # members named through the class: boost::asio::basic_socket::endpoint_type
        t = re.sub(re.escape(c) + r"::(\w+)", r"typename A::\1", t)
    t = re.sub(r"\bbasic_socket<[^&]*>\s*&", "typename X::template socket<%s> &" % (protocol or TCP), t)
    for c in classes:  # the class itself (copy, move, converting move): the type under audit
        short = c.split("::")[-1]
        t = re.sub(r"\b%s<[^<>]*(<[^<>]*>[^<>]*)*>" % short, "T", t)
        if "::io_context::" in c:  # io_context::work, io_context::strand: not templates
            t = re.sub(r"(\bboost::asio::)?\bio_context::%s\b(?!::)" % short, "T", t)
    # The execution context a nested class takes: Asio's for Asio's, simasio's for simasio's.
    t = re.sub(r"(?<!::)(\bboost::asio::)?\bio_context\b(?!::)", "typename X::context", t)
    unknown = []

    def sub(m):
        qual, word = m.group(1), m.group(2)
        if qual:
            return m.group(0)
        if word in class_args:
            return class_args[word]
        if word in tnames:
            if TOKEN.match(word):
                return ANY_HANDLER
            if word == "Protocol1":
                return protocol or word
            if word in TEMPLATE_ARGS:
                return TEMPLATE_ARGS[word]
            unknown.append(word)
            return word
        if word in member_types:
            return "typename A::" + word
        return word

    t = IDENT.sub(sub, t)
    t = t.replace("typename A::typename A::", "typename A::")
    return None if unknown else t


def is_constraint(t):
    return "constraint<" in t or "enable_if<" in t


def probes_for(label, funcs, names, classes, class_args, protocol, callee=None):
    """(key, expression) pairs: the expression compiles when the member is there."""
    out = []
    member_types = {n for kind, n in names if kind == "type"}
    for kind, n in names:
        if kind == "type":
            out.append(("%s::%s (type)" % (label, n), "typename T::%s;" % n))
        elif kind == "value":
            out.append(("%s::%s" % (label, n), "T::%s;" % n))
        elif n == "rebind_executor":
            out.append(("%s::rebind_executor<>::other" % label,
                        "typename T::template rebind_executor<typename X::executor>::other;"))
    for f in funcs:
        params = [(t, d) for t, d in f.params if not is_constraint(t)]
        spelled = [rewrite(t, classes, member_types, class_args, set(f.tnames), protocol) for t, _ in params]
        required = sum(1 for _, d in params if not d)
        for arity in range(required, len(params) + 1):
            shown = ", ".join(re.sub(r"boost::(asio::|system::)", "", t) for t, _ in params[:arity])
            name = f.name.split("<")[0]
            key = "%s::%s(%s)%s" % (label, name, shown, " const" if f.const else "")
            if any(s is None for s in spelled[:arity]):
                out.append((key, None))
                continue
            args = ", ".join("std::declval<%s>()" % s for s in spelled[:arity])
            if f.kind == "ctor":
                expr = "T(%s);" % args
            elif f.kind == "free":
                expr = "%s(%s);" % (callee, args)
            elif f.static:
                expr = "T::%s(%s);" % (name, args)
            else:
                obj = "std::declval<const T&>()" if f.const else "std::declval<T&>()"
                expr = "%s.%s(%s);" % (obj, name, args)
            out.append((key, expr))
    seen, unique = set(), []
    for k, e in out:
        if k not in seen:
            seen.add(k)
            unique.append((k, e))
    return unique


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang", required=True)
    ap.add_argument("--include", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    wanted = sorted({c for _, cs, _, _, _ in AUDITS for c in cs} | {q for _, q, _, _, _ in FREE})
    # One clang run per group of names (each run parses all of Asio: seconds),
    # each name's declarations then found in its group's tree.
    group = {n: next((g for g in GROUPS if n.startswith(g)), n) for n in wanted}
    filters = sorted(set(group.values()))
    with ThreadPoolExecutor(max_workers=2) as pool:
        dumped = dict(zip(filters, pool.map(lambda f: dump(a.clang, a.include, f), filters)))
    trees = {n: dumped[group[n]] for n in wanted}

    audits = []  # (label, Asio's type, simasio's type, probes)
    for label, classes, atype, stype, args in AUDITS:
        protocol = args.get("Protocol") or args.get("InternetProtocol")
        names, funcs = [], []
        for c in classes:  # the class and its bases: their names and functions, probed on the class
            f, n = members(definition(trees[c], c)[1])
            funcs += f
            names += n
        types = [(k, n) for k, n in names if k == "type"]
        probes = probes_for(label, [], names, classes, args, protocol)
        probes += [p for p in probes_for(label, funcs, types, classes, args, protocol) if not p[0].endswith("(type)")]
        audits.append((label, atype, stype, probes))
    for label, q, atype, stype, args in FREE:
        funcs = free_functions(trees[q], q)
        audits.append((label, None, None, probes_for(label, funcs, [], [], args, args.get("Protocol"), callee="F::" + label)))

    write(a.out, audits)


def write(path, audits):
    lines = [
        "// Generated by test/surface/gen_probes.py from Boost's headers: do not edit.",
        "// Each probe is instantiated on Asio's type and on simasio's.",
        "#include <utility>",
        "namespace boost::asio::ip {  // Asio's own spellings of its parameter types resolve here",
        "namespace simasio_surface_probes {",
    ]
    table = []
    n = 0
    for label, atype, stype, probes in audits:
        for key, expr in probes:
            n += 1
            if expr is None:
                table.append('  {"%s", -1, -1},' % key.replace('"', '\\"'))
                continue
            lines.append("template <class T, class A, class X, class F> constexpr bool p%d = requires { %s };" % (n, expr))
            if atype is None:
                a = "p%d<void, void, simasio_surface::asio_env, simasio_surface::asio_free>" % n
                s = "p%d<void, void, simasio_surface::sim_env, simasio_surface::sim_free>" % n
            else:
                a = "p%d<%s, %s, simasio_surface::asio_env, void>" % (n, atype, atype)
                s = "p%d<%s, %s, simasio_surface::sim_env, void>" % (n, stype, atype)
            table.append('  {"%s", %s, %s},' % (key.replace('"', '\\"'), a, s))
    lines += ["}  // namespace simasio_surface_probes", "}  // namespace boost::asio::ip", "",
              "namespace simasio_surface {",
              "inline constexpr probe probes[] = {"]
    lines += [re.sub(r"\bp(\d+)<", r"boost::asio::ip::simasio_surface_probes::p\1<", t) for t in table]
    lines += ["};", "}  // namespace simasio_surface", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
