"""Browser assets served from local files: every page Redotrail writes renders with no network.

Great Expectations' Data Docs templates load Bootstrap, jQuery, bootstrap-table, Font Awesome and
Vega from public CDNs, so an air-gapped browser shows an unstyled page whose validation table never
renders. Here:

* :func:`install` (``./redotrail setup``, ``python -m redo_lib.reports.assets install``) fetches
  the npm packages pinned in ``include/web/assets.txt`` with ``npm pack``, checks each tarball's
  sha512 against the pin, and extracts the listed files into ``include/web/vendor/<package>/``;
* :func:`localize_site` copies them into a site folder (``static/vendor/``) and rewrites every HTML
  page's CDN links to relative paths to those copies (and GE's logo, which it loads from S3, to the
  copy GE ships in ``static/images/``). Nothing is fetched when a job runs.

Layer "top" (a tool: it runs npm); imports nothing from redo_lib but errors.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import final

from redo_lib.errors import RedoError

REPO = Path(__file__).resolve().parents[2]
ASSETS_FILE = REPO / "include" / "web" / "assets.txt"
VENDOR_ENV = "REDOTRAIL_WEB_VENDOR"  # another place for the extracted files (default include/web/vendor)
SITE_VENDOR = ("static", "vendor")  # where a site's copy goes, relative to its root

# CDN address (without query) -> the file in the vendor folder that replaces it
CDN = {
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": "bootstrap/dist/css/bootstrap.min.css",
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": "bootstrap/dist/js/bootstrap.min.js",
    "https://code.jquery.com/jquery-3.7.1.min.js": "jquery/dist/jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": "popper.js/dist/umd/popper.min.js",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": "bootstrap-table/dist/bootstrap-table.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": "bootstrap-table/dist/bootstrap-table.min.js",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/extensions/filter-control/bootstrap-table-filter-control.min.js": "bootstrap-table/dist/extensions/filter-control/bootstrap-table-filter-control.min.js",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.css": "bootstrap-table/dist/extensions/filter-control/bootstrap-table-filter-control.min.css",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.min.css": "bootstrap-table/dist/extensions/filter-control/bootstrap-table-filter-control.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/bootstrap-datepicker.min.css": "bootstrap-datepicker/dist/css/bootstrap-datepicker.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/bootstrap-datepicker.min.js": "bootstrap-datepicker/dist/js/bootstrap-datepicker.min.js",
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/bootstrap-prefers-dark.css": "@forevolve/bootstrap-dark/dist/css/bootstrap-prefers-dark.css",
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": "@fortawesome/fontawesome-free/css/all.min.css",
    "https://cdn.jsdelivr.net/npm/vega@5": "vega/build/vega.min.js",
    "https://cdn.jsdelivr.net/npm/vega-lite@5": "vega-lite/build/vega-lite.min.js",
    "https://cdn.jsdelivr.net/npm/vega-embed@6": "vega-embed/build/vega-embed.min.js",
}  # fmt: skip
# what the report across batches loads (redo_lib.reports.history)
VEGA = ("vega/build/vega.min.js", "vega-lite/build/vega-lite.min.js", "vega-embed/build/vega-embed.min.js")
BOOTSTRAP_CSS = "bootstrap/dist/css/bootstrap.min.css"
# GE's logo, loaded from its S3 bucket; GE ships the same image in the site's static/images/
_GE_LOGO = re.compile(
    r"https://great-expectations-web-assets\.s3\.[a-z0-9-]+\.amazonaws\.com/([\w.-]+\.png)(\?[^\"')]*)?"
)
_ATTRS = re.compile(r'\s+(?:integrity="[^"]*"|crossorigin="[^"]*")')  # SRI pins the CDN's bytes, not ours


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Package:
    """One line of assets.txt: an npm spec, its tarball's sha512 (npm ``dist.integrity``), files."""

    spec: str
    integrity: str
    files: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.spec.rsplit("@", 1)[0]


def load_packages(path: Path = ASSETS_FILE) -> list[Package]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("#", 1)[0].split()
        if fields:
            out.append(Package(spec=fields[0], integrity=fields[1], files=tuple(fields[2:])))
    return out


def vendor_dir() -> Path:
    return Path(os.environ.get(VENDOR_ENV) or REPO / "include" / "web" / "vendor")


def missing(packages: list[Package] | None = None, root: Path | None = None) -> list[Package]:
    """The packages with a listed file not yet in the vendor folder."""
    root = root or vendor_dir()
    return [p for p in packages or load_packages() if not all((root / p.name / f).is_file() for f in p.files)]


def integrity_of(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def install(root: Path | None = None, *, npm: str = "npm") -> list[str]:
    """Fetch and extract every missing package (module docstring); returns the specs installed."""
    root = root or vendor_dir()
    todo = missing(root=root)
    if todo and shutil.which(npm) is None:
        raise RedoError(
            f"npm is needed once, to fetch the report assets of {ASSETS_FILE} (apt-get install npm)"
        )
    done = []
    for package in todo:
        with tempfile.TemporaryDirectory(prefix="redotrail-npm-") as tmp:
            proc = subprocess.run(
                [npm, "pack", package.spec, "--json", "--pack-destination", tmp],
                capture_output=True, text=True, cwd=tmp,
            )  # fmt: skip
            if proc.returncode != 0:
                raise RedoError(f"npm pack {package.spec} failed: {proc.stderr.strip()[-500:]}")
            (tarball,) = (Path(tmp) / entry["filename"] for entry in json.loads(proc.stdout))
            data = tarball.read_bytes()
            if integrity_of(data) != package.integrity:
                raise RedoError(
                    f"{package.spec}: the tarball's integrity {integrity_of(data)} is not the pinned "
                    f"{package.integrity} ({ASSETS_FILE})"
                )
            with tarfile.open(tarball) as archive:
                for name in package.files:
                    member = archive.extractfile(f"package/{name}")
                    if member is None:
                        raise RedoError(f"{package.spec} has no file {name}")
                    target = root / package.name / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(member.read())
        done.append(package.spec)
    return done


def _vendor_files() -> Iterator[tuple[Path, str]]:
    root = vendor_dir()
    lacking = missing(root=root)
    if lacking:
        raise RedoError(
            f"the report assets are not installed ({', '.join(p.spec for p in lacking)} missing in {root}): "
            "run ./redotrail setup"
        )
    for package in load_packages():
        for name in package.files:
            yield root / package.name / name, f"{package.name}/{name}"


def copy_vendor(site: Path) -> Path:
    """Copy the vendor files into ``site/static/vendor/``; returns that folder."""
    target = site.joinpath(*SITE_VENDOR)
    for source, rel in _vendor_files():
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
    return target


def localize_html(text: str, to_root: str) -> str:
    """A page's CDN links -> relative links to the site's vendor copies; ``to_root`` is the path
    from the page's folder to the site root (``""`` or ``"../../"``)."""
    vendor = to_root + "/".join(SITE_VENDOR) + "/"
    for url in sorted(CDN, key=len, reverse=True):
        text = text.replace(f'"{url}"', f'"{vendor}{CDN[url]}"')
    text = _GE_LOGO.sub(lambda m: f"{to_root}static/images/{m.group(1)}", text)
    return _ATTRS.sub("", text)


def localize_site(site: Path) -> int:
    """Copy the vendor files into a site and rewrite its pages (and GE's stylesheets) to use them.
    Returns the number of files rewritten."""
    copy_vendor(site)
    changed = 0
    for page in site.rglob("*.html"):
        depth = len(page.relative_to(site).parts) - 1
        text = page.read_text(encoding="utf-8")
        new = localize_html(text, "../" * depth)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed += 1
    for sheet in site.joinpath("static", "styles").glob("*.css"):
        text = sheet.read_text(encoding="utf-8")
        new = _GE_LOGO.sub(lambda m: f"../images/{m.group(1)}", text)
        if new != text:
            sheet.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def external_resources(text: str) -> list[str]:
    """The ``src=`` / stylesheet ``href=`` addresses of a page that are not local (links to other
    pages are no resources): what must be empty for the page to render offline."""
    found = re.findall(r'<(?:script|img)[^>]*\ssrc="(https?://[^"]+)"', text)
    found += re.findall(r'<link[^>]*\shref="(https?://[^"]+)"', text)
    found += re.findall(r"url\(['\"]?(https?://[^)'\"]+)", text)
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] != ["install"]:
        print("usage: python -m redo_lib.reports.assets install", file=sys.stderr)
        return 2
    installed = install()
    print(
        f"report assets: {len(installed)} packages fetched into {vendor_dir()}"
        if installed
        else "report assets up to date"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
