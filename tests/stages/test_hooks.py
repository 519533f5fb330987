"""Every family's hooks keep their signatures (sft_ui/stages/hooks.py): each function a
family names takes the calls its Protocol describes, with its optional arguments and
without them; the type checker holds the callers to the same Protocols."""
import inspect

import pytest

from sft_ui.stages import HOOKS, families, family_hook
from sft_ui.stages.base import REQUIRED
from sft_ui.stages.hooks import SIGNATURES


def _positional(protocol) -> tuple[int, int]:
    """(required, all) positional parameters of the Protocol's call."""
    params = list(inspect.signature(protocol.__call__).parameters.values())[1:]  # (self)
    return (sum(p.default is inspect.Parameter.empty for p in params), len(params))


def test_every_hook_has_a_signature_and_every_family_names_the_required():
    assert set(SIGNATURES) == set(HOOKS)
    for family in families():
        assert set(REQUIRED) <= set(family.hooks), family.name


@pytest.mark.parametrize("family", families(), ids=lambda f: f.name)
def test_each_family_function_takes_its_hooks_calls(family):
    for name in family.hooks:
        fn = family_hook(family, name)
        least, most = _positional(SIGNATURES[name])
        signature = inspect.signature(fn)
        for count in {least, most}:
            try:
                signature.bind(*range(count))
            except TypeError as e:
                pytest.fail(f"{family.name}'s {name} hook {fn.__module__}.{fn.__name__}"
                            f"{signature} cannot take {count} arguments: {e}")


def test_the_check_sees_a_wrong_signature():
    def two(cfg, extra):
        return None
    least, most = _positional(SIGNATURES["data_check"])
    with pytest.raises(TypeError):
        inspect.signature(two).bind(*range(least))
