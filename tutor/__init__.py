"""The Transformer math tutor: predict what a real model computes, then see the tensor."""

__version__ = "0.1.0"
