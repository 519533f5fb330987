"""Translations of the studio's English text, one module per language (see sft_ui/i18n.py)."""
