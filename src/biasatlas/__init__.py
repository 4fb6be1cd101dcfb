"""biasatlas: social-bias benchmarks for pretrained language models, reproduced exactly."""

__version__ = "0.1.0"
