"""The author's toolkit: lessons check (static and live), the lesson template and the probe listing."""
