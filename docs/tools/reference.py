#!/usr/bin/env python3
"""reference.py XML_DIR PROJECT OUT_DIR TITLE_PREFIX — one reference page per
public header, from Doxygen's XML: its classes and structs, and the
functions, enums, aliases, variables and macros it declares at namespace
scope, each as a Breathe directive. scripts/docs.sh runs it on a copy of
docs/ before Sphinx, so the pages follow the headers and are never stale.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

DIRECTIVE = {"function": "doxygenfunction", "enum": "doxygenenum", "typedef": "doxygentypedef",
             "variable": "doxygenvariable", "define": "doxygendefine"}
SECTION = {"class": "Classes", "function": "Functions", "enum": "Enumerations", "typedef": "Type aliases",
           "variable": "Variables", "define": "Macros"}


def text(node):
    return "".join(node.itertext()).strip() if node is not None else ""


def main():
    xml_dir, project, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    index = ET.parse(os.path.join(xml_dir, "index.xml")).getroot()
    headers = {}  # header path (as included) -> {section: [directive lines]}
    briefs = {}

    def entry(header):
        return headers.setdefault(header, {k: [] for k in SECTION})

    def include_path(location):
        path = location.get("declfile") or location.get("file")
        m = re.search(r"(simasio/.*\.hpp)$", path)
        return m.group(1) if m else None

    for compound in index.findall("compound"):
        kind, refid = compound.get("kind"), compound.get("refid")
        if kind not in ("class", "struct", "namespace", "file"):
            continue
        root = ET.parse(os.path.join(xml_dir, refid + ".xml")).getroot().find("compounddef")
        name = text(root.find("compoundname"))
        if kind == "file":
            header = include_path(root.find("location"))
            if header:
                entry(header)
                briefs[header] = text(root.find("briefdescription"))
            continue
        if not name.startswith("simasio") or "::detail" in name or "detail_glue" in name:
            continue
        if kind in ("class", "struct"):
            if root.get("prot") != "public":
                continue
            # Nested types are shown inside their enclosing class.
            outer = name.rsplit("::", 1)[0]
            if any(text(c.find("name")) == outer and c.get("kind") in ("class", "struct")
                   for c in index.findall("compound")):
                continue
            header = include_path(root.find("location"))
            if header:
                entry(header)["class"].append((f"doxygen{kind}", name, ""))
            continue
        for section in root.findall("sectiondef"):
            for member in section.findall("memberdef"):
                mkind = member.get("kind")
                if mkind not in DIRECTIVE or member.get("prot") != "public":
                    continue
                header = include_path(member.find("location"))
                if not header:
                    continue
                mname = text(member.find("name"))
                qualified = mname if mkind == "define" else f"{name}::{mname}"
                args = ""
                if mkind == "function":
                    # The parameters' types and names, without default arguments.
                    def param(p):
                        t, n, a = text(p.find("type")), text(p.find("declname")), text(p.find("array"))
                        if t.endswith("(*") or t.endswith("(&"):  # a function pointer: void(*body)(world&)
                            return f"{t}{n}{a}"
                        if "(*)" in t:  # the same, its name after the type: void(*)(world&) body
                            return t.replace("(*)", f"(*{n})", 1)
                        return " ".join(filter(None, (t, n))) + a
                    params = [param(p) for p in member.findall("param")]
                    args = "(" + ", ".join(params) + ")"
                    if args == "(void)":
                        args = "()"
                    if re.search(r"\)\s*const\b", text(member.find("argsstring"))):
                        args += " const"
                entry(header)[mkind].append((DIRECTIVE[mkind], qualified, args))

    os.makedirs(out_dir, exist_ok=True)
    for header in sorted(headers):
        sections = headers[header]
        if not any(sections.values()):
            continue
        stem = re.sub(r"[^A-Za-z0-9]+", "_", header[len("simasio/"):-len(".hpp")])
        lines = [f"# `<{header}>`", ""]
        if briefs.get(header):
            lines += [briefs[header], ""]
        for key, title in SECTION.items():
            seen = set()
            items = [i for i in sections[key] if not (i in seen or seen.add(i))]
            if not items:
                continue
            lines += [f"## {title}", ""]
            for directive, name, args in items:
                lines += [f"```{{{directive}}} {name}{args}", f":project: {project}"]
                if directive in ("doxygenclass", "doxygenstruct"):
                    lines += [":members:", ":protected-members:"] if project == "simasio" else [":members:", ":undoc-members:"]
                lines += ["```", ""]
        with open(os.path.join(out_dir, stem + ".md"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
    print(f"reference: {sum(1 for h in headers if any(headers[h].values()))} header page(s) for {project}")


if __name__ == "__main__":
    main()
