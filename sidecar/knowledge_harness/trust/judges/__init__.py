"""trust/judges"""
