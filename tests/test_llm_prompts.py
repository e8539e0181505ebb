"""The language-model prompt explains the symbols of the view the model reads, not the terminal's."""

import pytest

from monster_zoo import envs
from monster_zoo.agents.llm.prompts import system_prompt
from monster_zoo.envs.core.json_view import view_legend


@pytest.mark.parametrize("game_id", envs.available())
def test_the_system_prompt_carries_the_legend_of_the_json_view(game_id):
    spec = envs.spec(game_id)
    prompt = system_prompt(spec)
    legend = view_legend(spec)
    if legend:
        assert legend in prompt
    if spec.legend and legend != spec.legend:  # a game whose view lists in words what the terminal draws
        assert spec.legend not in prompt, f"{game_id}: the prompt explains the terminal's drawing"


def test_monster_factory_reads_its_table_in_words():
    spec = envs.spec("monster_factory-v0")
    assert view_legend(spec) != spec.legend
