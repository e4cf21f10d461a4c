#!/usr/bin/env python3
"""check_links.py HTML_DIR [MARKDOWN...] — every local link leads somewhere.

In the built site: each href and src that is not an external URL must name
a file of the site, and its #fragment an id in that file. In each Markdown
file given (the README, read on a forge before the site): each relative
link must name a file of the repository, and its #fragment a heading's
slug there. External links are not followed (nothing leaves the machine).
"""
import html.parser
import os
import re
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])


def external(link):
    return re.match(r"^[a-z][a-z0-9+.-]*:", link) is not None


def check_site(root):
    pages = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".html"):
                p = Page()
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    p.feed(fh.read())
                pages[os.path.normpath(os.path.join(dirpath, f))] = p
    broken = []
    for path, page in pages.items():
        for link in page.links:
            if external(link) or link.startswith("//"):
                continue
            target, _, fragment = link.partition("#")
            target = urllib.parse.unquote(target.partition("?")[0])
            dest = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            if os.path.isdir(dest):
                dest = os.path.join(dest, "index.html")
            if not os.path.exists(dest):
                broken.append(f"{os.path.relpath(path, root)}: {link} (no such file)")
            elif fragment and dest in pages and urllib.parse.unquote(fragment) not in pages[dest].ids:
                broken.append(f"{os.path.relpath(path, root)}: {link} (no such anchor)")
    return len(pages), broken


def slugs(markdown):
    out, fence = set(), False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6}\s+(.*)", line)
        if m:
            text = re.sub(r"[`*_]", "", m.group(1)).strip().lower()
            text = re.sub(r"[^\w\- ]", "", text)
            out.add(text.replace(" ", "-"))
    return out


def check_markdown(path):
    broken = []
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    text_wo_code = re.sub(r"```.*?```", "", text, flags=re.S)
    for link in re.findall(r"\]\(([^)\s]+)\)", text_wo_code):
        if external(link):
            continue
        target, _, fragment = link.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
        if not os.path.exists(dest):
            broken.append(f"{path}: {link} (no such file)")
        elif fragment and dest.endswith(".md"):
            with open(dest, encoding="utf-8") as fh:
                if fragment not in slugs(fh.read()):
                    broken.append(f"{path}: {link} (no such heading)")
    return broken


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_links.py HTML_DIR [MARKDOWN...]")
    count, broken = check_site(sys.argv[1])
    for md in sys.argv[2:]:
        broken += check_markdown(md)
    for b in broken:
        print("broken link:", b, file=sys.stderr)
    if broken:
        sys.exit(f"check_links: {len(broken)} broken link(s)")
    if count == 0:
        sys.exit(f"check_links: no pages under {sys.argv[1]}")
    print(f"check_links: {count} pages, every local link leads somewhere")


if __name__ == "__main__":
    main()
