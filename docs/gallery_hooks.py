"""sphinx-gallery hooks for bnclf's examples (named by string in ``conf.py``).

The scripts in ``examples/`` are plain command-line programs: ``main(out=".")`` writes
its figures (PNG) and other files into ``out``, taken from ``sys.argv[1]``, and closes
the figures. The gallery runs each one with ``sys.argv[1]`` set to a fresh folder
(:func:`output_folder_argv`) and shows the images the script wrote there
(:func:`written_images`), in the order it wrote them, one below the other, each a link to
its full-size file. What a script prints is shown as it is: it names the files it wrote
relative to its output folder, so that no path of the build machine gets into the page.
"""

import re
import shutil
from pathlib import Path

#: The order of the examples in the gallery (others follow, by file name).
ORDER = [
    "structures_side_by_side.py",
    "ensembles_and_multinets.py",
    "instance_specific.py",
    "explain_a_prediction.py",
    "rmcv.py",
    "multilabel.py",
]

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".svg", ".gif"}
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")


def _titled(source):
    """The script's source with an RST title line at the top of its docstring.

    sphinx-gallery makes an example's page title from the first paragraph of its docstring
    and needs it underlined to be a title. A docstring whose first paragraph is not
    underlined gets the underline here, in the staged copy: the paragraph up to its first
    colon becomes the title (the rest opens the next paragraph) when it is longer than a
    line, the whole paragraph otherwise. Docstrings that have a title are left as they are.
    """
    match = re.match(r'(\s*(?:#[^\n]*\n\s*)*)("""|\'\'\')(.*?)\2', source, re.S)
    if match is None:
        return source
    head, quote, doc = match.groups()
    paragraphs = doc.strip("\n").split("\n\n")
    lines = paragraphs[0].splitlines()
    if len(lines) > 1 and UNDERLINE.match(lines[1]):
        return source
    first = " ".join(line.strip() for line in lines)
    rest = paragraphs[1:]
    if len(lines) > 1 and ": " in first:
        title, tail = first.split(": ", 1)
        rest = [tail[:1].upper() + tail[1:]] + rest
    else:
        title = first
    title = title.rstrip(".")
    new_doc = "\n\n".join([f"{title}\n{'=' * len(title)}"] + rest) + "\n"
    return source[: match.start(2)] + quote + new_doc + quote + source[match.end() :]


def stage_examples(examples, staged, header):
    """Copy ``examples/*.py`` and the gallery header into ``staged`` (files rewritten only
    when their content changes, so sphinx-gallery's checksums see unchanged examples)."""
    staged.mkdir(parents=True, exist_ok=True)
    wanted = {"GALLERY_HEADER.rst": header.read_text(encoding="utf-8")}
    for script in sorted(Path(examples).glob("*.py")):
        wanted[script.name] = _titled(script.read_text(encoding="utf-8"))
    for old in staged.iterdir():
        if old.name not in wanted:
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    for name, text in wanted.items():
        target = staged / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


class ExampleOrder:
    """``within_subsection_order``: :data:`ORDER`, then by file name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        name = Path(filename).name
        return (ORDER.index(name) if name in ORDER else len(ORDER), name)


def _output_folder(script_vars):
    target = Path(script_vars["target_file"])
    return target.parent / "example_outputs" / target.stem


def output_folder_argv(gallery_conf, script_vars):
    """``reset_argv``: the script's output folder, emptied, as its only argument."""
    out = _output_folder(script_vars)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    script_vars["bnclf_shown"] = set()
    return [str(out)]


def _image_rst(image, src_dir, alt):
    """An image of the gallery: at its own size up to the width of the page (one below the
    other: sphinx-gallery's row of several images shows each at under half the width), as a
    link to the full-size file (Sphinx links an image whose width is given)."""
    lines = [
        f".. image:: /{Path(image).relative_to(src_dir).as_posix()}",
        f"   :alt: {alt}",
        "   :class: sphx-glr-single-img",
    ]
    if Path(image).suffix.lower() in {".png", ".jpg", ".jpeg", ".gif"}:
        from PIL import Image

        with Image.open(image) as opened:
            lines.append(f"   :width: {opened.width}px")
    return "\n\n" + "\n".join(lines) + "\n\n"


def written_images(block, block_vars, gallery_conf):
    """Image scraper: the images the block wrote into the output folder, oldest first."""
    out = _output_folder(block_vars)
    shown = block_vars.setdefault("bnclf_shown", set())
    new = sorted(
        (path for path in out.rglob("*") if path.suffix.lower() in IMAGE_SUFFIXES and path not in shown),
        key=lambda path: (path.stat().st_mtime_ns, path.name),
    )
    rst = []
    for path, image_path in zip(new, block_vars["image_path_iterator"]):
        image_path = Path(image_path).with_suffix(path.suffix.lower())
        shutil.copyfile(path, image_path)
        shown.add(path)
        rst.append(_image_rst(image_path, gallery_conf["src_dir"], alt=path.name))
    return "".join(rst)
