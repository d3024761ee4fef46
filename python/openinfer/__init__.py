"""OpenInfer Python tools (numpy only). See `openinfer.oinf` for model packages."""

__version__ = "0.1.0"
