"""Packages found, not listed: every package under the three folders, named as pyproject's package-dir maps them.

A package added under tools/ or knowledge/ then ships in the wheel without anyone editing a list
(tests/test_packaging.py builds the wheel and imports every module from it).
"""

from setuptools import find_packages, setup

ROOTS = ("server", "tools", "knowledge")

setup(
    packages=[
        f"vllm_quant_mcp.{root}{'.' + sub if sub else ''}" for root in ROOTS for sub in ["", *find_packages(root)]
    ]
)
