"""The trading desk's roles: four analysts, researchers, managers, trader and risk team."""
