"""The general-purpose judge metrics: AspectCritic, SimpleCriteriaScore, RubricsScore."""
