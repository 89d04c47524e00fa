"""Checked text edits for the seed rewrites (hack/seeds/*-rewrite.py): each
edit fails loudly, naming the script, when the text it replaces is not
there exactly as many times as expected — a rewrite never half-applies
silently to code that moved."""
import sys


class Source:
    def __init__(self, path, script):
        self.path, self.script = path, script
        self.text = open(path).read()

    def replace(self, old, new, count=1):
        n = self.text.count(old)
        if n != count:
            sys.exit(f"{self.script}: {self.path}: expected {count} occurrence(s) of:\n{old}\nfound {n}")
        self.text = self.text.replace(old, new)

    def replace_between(self, start, end, new):
        """Replaces the text from start up to and including end (start unique)."""
        i = self.text.find(start)
        j = self.text.find(end, i)
        if i < 0 or j < 0 or self.text.count(start) != 1:
            sys.exit(f"{self.script}: {self.path}: cannot find the block starting with:\n{start}")
        self.text = self.text[:i] + new + self.text[j + len(end):]

    def append(self, text):
        self.text = self.text.rstrip("\n") + "\n" + text

    def save(self):
        open(self.path, "w").write(self.text)
