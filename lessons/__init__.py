"""The built-in lessons (YAML files and index.yaml), installed as tutor.lessons."""
