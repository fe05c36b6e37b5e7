"""Types: the stubs of the native module match it (mypy's stubtest), and
mypy --strict passes on the package, the tests and the README examples."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from mypy import api as mypy_api

from erpdata import _core
from test_readme import python_blocks

ROOT = Path(__file__).resolve().parents[2]


def _stub_classes() -> dict[str, dict[str, ast.FunctionDef]]:
    tree = ast.parse((ROOT / "python/erpdata/_core.pyi").read_text(encoding="utf-8"))
    return {
        node.name: {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


def _stub_params(func: ast.FunctionDef) -> list[tuple[str, str, object]]:
    """(name, kind, default) of each parameter after self/cls."""
    args = func.args
    out: list[tuple[str, str, object]] = []
    positional = args.posonlyargs + args.args
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)
    defaults: list[object] = [None] * (len(positional) - len(args.defaults)) + [
        ast.literal_eval(d) for d in args.defaults
    ]
    for i, (a, d) in enumerate(zip(positional, defaults)):
        if i == 0 and not static:
            continue  # self / cls
        out.append(
            (a.arg, "positional", d if i >= len(positional) - len(args.defaults) else "<required>")
        )
    for a, kd in zip(args.kwonlyargs, args.kw_defaults):
        out.append((a.arg, "keyword", "<required>" if kd is None else ast.literal_eval(kd)))
    return out


def _runtime_params(obj: object) -> list[tuple[str, str, object]]:
    out: list[tuple[str, str, object]] = []
    for p in inspect.signature(obj).parameters.values():  # type: ignore[arg-type]
        if p.name in ("self", "cls", "$self", "$cls", "type"):
            continue
        kind = "keyword" if p.kind is p.KEYWORD_ONLY else "positional"
        out.append((p.name, kind, "<required>" if p.default is p.empty else p.default))
    return out


def test_stubs_match_the_native_module() -> None:
    # What mypy's stubtest checks, without its half-minute startup:
    # the same classes, members, parameter names, kinds and defaults.
    stubs = _stub_classes()
    exported = [n for n in _core.__all__ if n != "__version__"]
    assert sorted(stubs) == sorted(n for n in exported if isinstance(getattr(_core, n), type))
    tree = ast.parse((ROOT / "python/erpdata/_core.pyi").read_text(encoding="utf-8"))
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert sorted(functions) == sorted(
        n
        for n in exported
        if callable(getattr(_core, n)) and not isinstance(getattr(_core, n), type)
    )
    # The core's limits, each a number typed in the stubs.
    constants = {
        t.target.id: t.annotation
        for t in tree.body
        if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)
    }
    assert sorted(n for n in constants if n != "__version__") == sorted(
        n for n in exported if not callable(getattr(_core, n))
    )
    for name, annotation in constants.items():
        assert isinstance(annotation, ast.Name)
        assert type(getattr(_core, name)).__name__ == annotation.id, name
    for name, func in functions.items():
        params = [(a.arg, "positional", "<required>") for a in func.args.args]
        assert params == _runtime_params(getattr(_core, name)), name
    for name, members in stubs.items():
        runtime = getattr(_core, name)
        public = {
            k
            for k in vars(runtime)
            if not k.startswith("_") or k == "__len__" or k.startswith("__arrow_c_")
        }
        assert set(members) - {"__new__"} == public, name
        if "__new__" not in members:
            with pytest.raises(TypeError):
                runtime()  # made only by the module itself
        for member, func in members.items():
            attr = getattr(runtime, member)
            is_property = any(
                isinstance(d, ast.Name) and d.id == "property" for d in func.decorator_list
            )
            assert is_property == inspect.isdatadescriptor(attr), f"{name}.{member}"
            if not is_property and member != "__len__":
                target = runtime if member == "__new__" else attr
                assert _stub_params(func) == _runtime_params(target), f"{name}.{member}"


def test_mypy_strict(tmp_path: Path) -> None:
    files = []
    for i, code in enumerate(python_blocks()):
        path = tmp_path / f"readme_block_{i}.py"
        path.write_text(code, encoding="utf-8")
        files.append(str(path))
    stdout, stderr, status = mypy_api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--strict",
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            str(ROOT / "python/erpdata"),
            str(ROOT / "tests/python"),
            *files,
        ]
    )
    assert status == 0, stdout + stderr
    assert "Success" in stdout


def test_every_public_name_has_a_docstring() -> None:
    import erpdata

    missing = []
    for name in erpdata.__all__:
        obj = getattr(erpdata, name)
        if name.startswith("__") or name == "Row":
            continue
        if not (getattr(obj, "__doc__", None) or "").strip():
            missing.append(name)
        if isinstance(obj, type):
            for attr, value in vars(obj).items():
                if attr.startswith("_") and attr not in ("__arrow_c_stream__", "__arrow_c_array__"):
                    continue
                target = value.fget if isinstance(value, property) else value
                if (
                    callable(target)
                    or isinstance(value, property)
                    or inspect.isdatadescriptor(value)
                ):
                    if not (getattr(target, "__doc__", None) or "").strip():
                        missing.append(f"{name}.{attr}")
    assert missing == []
